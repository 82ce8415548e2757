//! Which path decided each oracle answer, and per-thread counts of them (printed by the
//! CLI's `--timings` and the benchmark).

use std::cell::Cell;

/// The path that decided an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DecidedBy {
    /// The views point into different allocations.
    Root,
    /// A view has no elements (a zero-length dimension).
    Empty,
    /// The byte ranges the views span are disjoint.
    Interval,
    /// Both views map every index tuple to the same element.
    SameMap,
    /// The offset difference is not a multiple of the gcd of the strides, or of a
    /// symbolic pitch it must be a multiple of (`(r - r')*n + (c - c')` with
    /// `0 < |c - c'| < n`).
    Gcd,
    /// A stride-0 dimension of length two or more (internal overlap).
    Broadcast,
    /// Sorted strides each exceed the span of the smaller ones (no internal overlap).
    Nested,
    /// Parallel iterations whose offset step exceeds the span of one iteration.
    Tiles,
    /// Exact bounded linear Diophantine search over concrete strides.
    Diophantine,
    /// Symbolic sizes: two allowed assignments, one where the views overlap and one
    /// where they do not (may alias, with the first as witness).
    Instances,
    /// The Z3 SMT solver.
    Z3,
}

impl DecidedBy {
    pub const ALL: [DecidedBy; 11] = [
        DecidedBy::Root,
        DecidedBy::Empty,
        DecidedBy::Interval,
        DecidedBy::SameMap,
        DecidedBy::Gcd,
        DecidedBy::Broadcast,
        DecidedBy::Nested,
        DecidedBy::Tiles,
        DecidedBy::Diophantine,
        DecidedBy::Instances,
        DecidedBy::Z3,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::Root => "root",
            DecidedBy::Empty => "empty",
            DecidedBy::Interval => "interval",
            DecidedBy::SameMap => "same_map",
            DecidedBy::Gcd => "gcd",
            DecidedBy::Broadcast => "broadcast",
            DecidedBy::Nested => "nested",
            DecidedBy::Tiles => "tiles",
            DecidedBy::Diophantine => "diophantine",
            DecidedBy::Instances => "instances",
            DecidedBy::Z3 => "z3",
        }
    }

    /// Whether the path is one of the exact fast paths (not the solver).
    pub fn is_fast_path(self) -> bool {
        self != DecidedBy::Z3
    }

    fn slot(self) -> usize {
        DecidedBy::ALL.iter().position(|d| *d == self).unwrap_or(0)
    }
}

impl std::fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

thread_local! {
    static COUNTS: [Cell<u64>; DecidedBy::ALL.len()] = Default::default();
}

pub(crate) fn record(by: DecidedBy) {
    COUNTS.with(|c| {
        let cell = &c[by.slot()];
        cell.set(cell.get().saturating_add(1));
    });
}

/// How many answers each path decided on this thread since the last reset.
pub fn path_stats() -> Vec<(DecidedBy, u64)> {
    COUNTS.with(|c| {
        DecidedBy::ALL
            .iter()
            .map(|d| (*d, c[d.slot()].get()))
            .collect()
    })
}

pub fn reset_path_stats() {
    COUNTS.with(|c| c.iter().for_each(|cell| cell.set(0)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_path_and_resettable() {
        reset_path_stats();
        record(DecidedBy::Gcd);
        record(DecidedBy::Gcd);
        record(DecidedBy::Z3);
        let stats = path_stats();
        assert!(stats.contains(&(DecidedBy::Gcd, 2)));
        assert!(stats.contains(&(DecidedBy::Z3, 1)));
        assert!(stats.contains(&(DecidedBy::Interval, 0)));
        reset_path_stats();
        assert!(path_stats().iter().all(|(_, n)| *n == 0));
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<&str> = DecidedBy::ALL.iter().map(|d| d.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DecidedBy::ALL.len());
    }
}
