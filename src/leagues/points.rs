//! Exact league points, in quarter points: no floats anywhere in a table.

use std::fmt;

/// A number of points, held exactly as a count of quarter points. Points are whole or half
/// (a draw); a Sonneborn-Berger score may add half of a half.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(u64);

impl Points {
    /// Zero points.
    pub const ZERO: Points = Points(0);
    /// One win.
    pub const WIN: Points = Points(4);
    /// One draw.
    pub const DRAW: Points = Points(2);

    /// `quarters` quarter points.
    pub fn from_quarters(quarters: u64) -> Points {
        Points(quarters)
    }

    /// `halves` half points.
    pub fn from_halves(halves: u64) -> Points {
        Points(2 * halves)
    }

    /// The count in quarter points.
    pub fn quarters(self) -> u64 {
        self.0
    }

    /// Half of these points (exact for any whole or half count).
    pub fn half(self) -> Points {
        Points(self.0 / 2)
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        self.0 += other.0;
    }
}

/// As a table shows it: `3`, `2½`, `½`, `10¾`.
impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, part) = (self.0 / 4, ["", "¼", "½", "¾"][(self.0 % 4) as usize]);
        match (whole, part) {
            (0, "") => write!(f, "0"),
            (0, part) => write!(f, "{part}"),
            (whole, part) => write!(f, "{whole}{part}"),
        }
    }
}
