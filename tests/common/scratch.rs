//! A folder in the system temp dir that a test removes when it is done with it (also when the
//! test fails): test runs leave no `postplay-…` folders behind.

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh, empty folder `postplay-{name}-{pid}`, removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    /// Creates the folder, emptying what an earlier crashed run left there.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("postplay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the temp dir is writable");
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
