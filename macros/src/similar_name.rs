//! "Did you mean" suggestions for misspelt lint, argument and parameter names.
//!
//! The threshold follows rustc's: a candidate is offered when its edit distance from the
//! written name is at most a third of the written name's length (and at least one). A
//! candidate that shares nothing with the name is never offered: `x` is not a typo of
//! `a`, however short both are.

/// The candidate closest to `written`, when one is close enough to be a likely typo.
///
/// Case is ignored so `Leak` suggests `leak`; ties go to the earlier candidate so the
/// suggestion does not depend on anything but the candidates' order.
pub(crate) fn closest<'a>(written: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let written_lower = written.to_lowercase();
    let threshold = (written.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for &candidate in candidates {
        let distance = edit_distance(&written_lower, &candidate.to_lowercase());
        let longer = written_lower.chars().count().max(candidate.chars().count());
        let rewrites_everything = distance >= longer;
        if distance > threshold || rewrites_everything {
            continue;
        }
        if best.is_none_or(|(best_distance, _)| distance < best_distance) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Levenshtein distance over chars, with one row of memory.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, a_char) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &b_char) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(a_char != b_char);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("leak", "leak"), 0);
        assert_eq!(edit_distance("leek", "leak"), 1);
        assert_eq!(edit_distance("asume", "assume"), 1);
        assert_eq!(edit_distance("assume", "asume"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn closest_suggests_a_near_typo() {
        let lints = ["leak", "double_free", "use_after_free"];
        assert_eq!(closest("leek", &lints), Some("leak"));
        assert_eq!(closest("double_fre", &lints), Some("double_free"));
        assert_eq!(closest("use_afterfree", &lints), Some("use_after_free"));
    }

    #[test]
    fn closest_ignores_case() {
        assert_eq!(closest("Leak", &["leak"]), Some("leak"));
    }

    #[test]
    fn closest_offers_nothing_for_an_unrelated_name() {
        assert_eq!(closest("warnings", &["leak", "double_free"]), None);
        assert_eq!(closest("xyz", &[]), None);
    }

    #[test]
    fn closest_never_offers_a_complete_rewrite_of_a_short_name() {
        assert_eq!(closest("x", &["a", "b"]), None);
        assert_eq!(closest("q", &["self", "p", "len"]), None);
        assert_eq!(closest("ab", &["a"]), Some("a"));
        assert_eq!(closest("a", &["ab"]), Some("ab"));
    }

    #[test]
    fn closest_prefers_the_smaller_distance_then_the_earlier_candidate() {
        assert_eq!(closest("abcd", &["abxx", "abcx", "abcy"]), Some("abcx"));
    }
}
