//! Concrete collisions: index tuples of two views (or of one view) that reach one
//! element, found by enumerating small instances. The diagnostics of in-place ops show
//! one such pair; the decision whether views overlap stays with [`super::overlap`].

use std::collections::{BTreeSet, HashMap};

use super::decide::Answer;
use super::expr::Expr;
use super::view::View;

/// Most elements enumerated when looking for a concrete colliding index pair.
const MAX_ENUMERATED: i64 = 1 << 14;

/// Value substituted for a size the oracle's witness leaves free, to show an example.
const EXAMPLE_SIZE: i64 = 3;

/// A concrete pair of different positions of `a` and `b` that reach one element.
pub struct Collision {
    /// The index of the first view.
    pub a: Vec<i64>,
    /// The index of the second view.
    pub b: Vec<i64>,
    pub element: i64,
    /// Example values of the sizes this pair needs (empty when the views are concrete).
    pub symbols: Vec<(String, i64)>,
}

/// Two different positions of `a` and `b` that reach one element, found by enumerating
/// small instances: the oracle's witness sizes first, then small example sizes. Positions
/// of a source that feed the same destination position (the same index, or a broadcast
/// axis of length 1) are not a collision. `None` when no small instance has one, or the
/// views are too large to enumerate.
pub fn colliding_pair(a: &View, b: &View, answer: &Answer) -> Option<Collision> {
    let mut free: BTreeSet<String> = a.symbols();
    free.extend(b.symbols());
    let symbolic = !free.is_empty();
    let witness: Vec<(String, i64)> = answer
        .witness
        .as_ref()
        .map(|w| w.symbols.clone())
        .unwrap_or_default();
    // The oracle's witness sizes first, then small example sizes: a witness may pick
    // sizes (1 x 1) where only the same positions meet.
    let mut tries: Vec<Vec<(String, i64)>> = Vec::new();
    for example in [EXAMPLE_SIZE, 2] {
        let mut t = witness.clone();
        t.extend(
            free.iter()
                .filter(|s| !witness.iter().any(|(w, _)| w == *s))
                .map(|s| (s.clone(), example)),
        );
        tries.push(t);
        tries.push(free.iter().map(|s| (s.clone(), example)).collect());
    }
    tries.into_iter().find_map(|symbols| {
        let concrete = |v: &View| {
            symbols
                .iter()
                .fold(v.clone(), |v, (s, x)| v.subst(s, &Expr::int(*x)))
        };
        let (a_ix, b_ix, element) = concrete_pair(&concrete(a), &concrete(b))?;
        Some(Collision {
            a: a_ix,
            b: b_ix,
            element,
            symbols: if symbolic { symbols } else { Vec::new() },
        })
    })
}

/// Whether `w` is a true witness that `a` and `b` overlap: with its symbol values
/// substituted, both index tuples lie inside their views' shapes, reach the same
/// element, and every assumption holds. A witness is checked this way before a finding
/// shows it.
pub fn witness_holds(a: &View, b: &View, asm: &super::Assumptions, w: &super::Witness) -> bool {
    let value = |s: &str| {
        w.symbols
            .iter()
            .find(|(k, _)| k == s)
            .map(|(_, v)| i128::from(*v))
    };
    let concrete = |v: &View| {
        w.symbols
            .iter()
            .fold(v.clone(), |v, (s, x)| v.subst(s, &Expr::int(*x)))
    };
    let reach = |v: &View, ix: &[i64]| -> Option<i64> {
        let (offset, dims) = concrete_geometry(&concrete(v))?;
        if ix.len() != dims.len() || ix.iter().zip(&dims).any(|(i, d)| *i < 0 || *i >= d.0) {
            return None;
        }
        address(offset, ix, &dims)
    };
    // A fact over a size the witness leaves free constrains nothing checkable here.
    let assumptions_hold = asm.facts().iter().all(|f| f.eval(&value) != Some(false));
    match (reach(a, &w.a), reach(b, &w.b)) {
        (Some(x), Some(y)) => x == y && assumptions_hold,
        _ => false,
    }
}

/// Different positions of two constant views that reach one element.
fn concrete_pair(a: &View, b: &View) -> Option<(Vec<i64>, Vec<i64>, i64)> {
    let (oa, la) = concrete_geometry(a)?;
    let (ob, lb) = concrete_geometry(b)?;
    let mut at: HashMap<i64, Vec<i64>> = HashMap::new();
    for ix in indices(&la.iter().map(|d| d.0).collect::<Vec<_>>())? {
        // Sizes and strides come from the checked code: huge ones must not overflow.
        let addr = address(oa, &ix, &la)?;
        at.entry(addr).or_insert(ix);
    }
    let b_lens: Vec<i64> = lb.iter().map(|d| d.0).collect();
    for jx in indices(&b_lens)? {
        let addr = address(ob, &jx, &lb)?;
        if let Some(ix) = at.get(&addr) {
            if !same_position(ix, &jx, &b_lens) {
                return Some((ix.clone(), jx, addr));
            }
        }
    }
    None
}

/// `offset + Σ index·stride`, or `None` on overflow.
fn address(offset: i64, index: &[i64], dims: &[(i64, i64)]) -> Option<i64> {
    index
        .iter()
        .zip(dims)
        .try_fold(offset, |acc, (i, d)| acc.checked_add(i.checked_mul(d.1)?))
}

/// Whether index `j` of a source (broadcast against the destination, aligned at the
/// trailing axes) feeds index `i` of the destination.
fn same_position(i: &[i64], j: &[i64], src_lens: &[i64]) -> bool {
    if j.len() > i.len() {
        return false;
    }
    let skip = i.len() - j.len();
    i[skip..]
        .iter()
        .zip(j)
        .zip(src_lens)
        .all(|((a, b), len)| a == b || *len == 1)
}

/// Offset and (len, stride) per axis of a view with constant geometry.
fn concrete_geometry(v: &View) -> Option<(i64, Vec<(i64, i64)>)> {
    let offset = v.offset.as_const()?;
    let dims = v
        .dims
        .iter()
        .map(|d| Some((d.len.as_const()?, d.stride.as_const()?)))
        .collect::<Option<Vec<_>>>()?;
    Some((offset, dims))
}

/// Every index tuple of a shape, or `None` when there are too many to enumerate.
fn indices(lens: &[i64]) -> Option<Vec<Vec<i64>>> {
    let mut total: i64 = 1;
    for &l in lens {
        if l < 0 {
            return None;
        }
        total = total.checked_mul(l)?;
    }
    if total > MAX_ENUMERATED {
        return None;
    }
    let mut all = Vec::with_capacity(total as usize);
    let mut cur = vec![0i64; lens.len()];
    for _ in 0..total {
        all.push(cur.clone());
        for axis in (0..lens.len()).rev() {
            cur[axis] += 1;
            if cur[axis] < lens[axis] {
                break;
            }
            cur[axis] = 0;
        }
    }
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{overlap, Assumptions, RootId};

    #[test]
    fn transposed_square_views_collide_at_different_positions() {
        let a = View::strided(RootId(0), 4, 0, &[3, 3], &[3, 1]);
        let b = View::strided(RootId(0), 4, 0, &[3, 3], &[1, 3]);
        let answer = overlap(&a, &b, &Assumptions::new());
        let pair = colliding_pair(&a, &b, &answer).expect("off-diagonal elements collide");
        assert_ne!(pair.a, pair.b);
        assert!(pair.symbols.is_empty());
    }

    #[test]
    fn a_witness_is_checked_by_substitution() {
        use crate::oracle::{Cmp, Dim, Expr, Witness};
        // Rows `a` and `b` of width `n`: they meet when `a == b`.
        let row = |s: &str| View {
            root: RootId(0),
            elem_bytes: 4,
            offset: Expr::sym(s) * Expr::sym("n"),
            dims: vec![Dim::new(Expr::sym("n"), 1)],
        };
        let (a, b) = (row("a"), row("b"));
        let answer = overlap(&a, &b, &Assumptions::new());
        let w = answer
            .witness
            .expect("rows meet when the indices are equal");
        assert!(witness_holds(&a, &b, &Assumptions::new(), &w));
        let at = |a: i64, b: i64, ia: i64, ib: i64| Witness {
            a: vec![ia],
            b: vec![ib],
            element: 0,
            symbols: vec![("a".into(), a), ("b".into(), b), ("n".into(), 3)],
        };
        assert!(witness_holds(&a, &b, &Assumptions::new(), &at(1, 1, 2, 2)));
        // Different rows, an index outside the row, or an assumption it breaks.
        assert!(!witness_holds(&a, &b, &Assumptions::new(), &at(1, 2, 0, 0)));
        assert!(!witness_holds(&a, &b, &Assumptions::new(), &at(1, 1, 3, 3)));
        let distinct = Assumptions::new().with(Expr::sym("a"), Cmp::Ne, Expr::sym("b"));
        assert!(!witness_holds(&a, &b, &distinct, &at(1, 1, 2, 2)));
    }

    #[test]
    fn identical_maps_only_meet_at_the_same_position() {
        let a = View::strided(RootId(0), 4, 0, &[4], &[1]);
        let answer = overlap(&a, &a, &Assumptions::new());
        assert!(colliding_pair(&a, &a, &answer).is_none());
    }

    #[test]
    fn broadcast_source_row_feeds_every_destination_row() {
        assert!(same_position(&[2, 1], &[0, 1], &[1, 3]));
        assert!(!same_position(&[2, 1], &[0, 2], &[1, 3]));
        assert!(same_position(&[2, 1], &[1], &[3]));
    }

    #[test]
    fn huge_strides_do_not_overflow() {
        let a = View::strided(RootId(0), 4, 0, &[2, 2], &[i64::MAX, 1]);
        let b = View::strided(RootId(0), 4, 1, &[2, 2], &[i64::MAX, 1]);
        // `a[1, 1]` would be at `i64::MAX + 1`: the search gives up instead of wrapping.
        assert!(concrete_pair(&a, &b).is_none());
        assert_eq!(address(0, &[2], &[(3, i64::MAX)]), None);
    }

    #[test]
    fn too_many_indices_are_not_enumerated() {
        assert!(indices(&[1 << 10, 1 << 10]).is_none());
        assert_eq!(indices(&[2, 2]).map(|v| v.len()), Some(4));
        assert_eq!(indices(&[0, 5]).map(|v| v.len()), Some(0));
    }
}
