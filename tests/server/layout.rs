//! The layout of the source holds (docs/LAYOUT.md): the engine imports no game, imports between
//! top-level modules point one way, and no folder holds more than 16 files of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The source folders: the server's, and the rules' crate beneath it (whose modules the server
/// re-exports under the same names, so both are one graph of top-level modules).
fn sources() -> [PathBuf; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("src"), root.join("crates/rules/src")]
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The top-level modules a file names through `crate::`, comments left out.
fn crate_paths(file: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut named = BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            named.insert(name);
        }
    }
    named
}

/// Which top-level modules each top-level module imports.
fn top_level_imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for (src, file) in sources()
        .into_iter()
        .flat_map(|src| rust_files(&src).into_iter().map(move |f| (src.clone(), f)))
    {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let imports: &mut BTreeSet<String> = graph.entry(module.clone()).or_default();
        imports.extend(crate_paths(&file).into_iter().filter(|m| *m != module));
    }
    graph
}

#[test]
fn the_engine_imports_no_game() {
    let graph = top_level_imports();
    assert!(
        graph["games"].contains("engine"),
        "the games build on the engine"
    );
    assert!(
        !graph["engine"].contains("games"),
        "the engine names crate::games: the registry lives above the engine"
    );
}

#[test]
fn imports_between_top_level_modules_point_one_way() {
    let graph = top_level_imports();
    assert!(graph.len() > 15, "{graph:?}");
    let both_ways: Vec<(&String, &String)> = graph
        .iter()
        .flat_map(|(a, imports)| imports.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a < b && graph.get(*b).is_some_and(|i| i.contains(*a)))
        .collect();
    assert!(
        both_ways.is_empty(),
        "modules importing each other: {both_ways:?}"
    );
}

#[test]
fn no_folder_holds_more_than_sixteen_files_of_its_own() {
    let mut folders: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for file in sources().iter().flat_map(|src| rust_files(src)) {
        *folders
            .entry(file.parent().unwrap().to_path_buf())
            .or_default() += 1;
    }
    assert!(folders.len() > 20, "{folders:?}");
    let crowded: Vec<_> = folders.iter().filter(|(_, n)| **n > 16).collect();
    assert!(crowded.is_empty(), "folders over 16 files: {crowded:?}");
}
