//! Double drops on unwinding: a bitwise copy (`ptr::read`) gives one value two owners,
//! the copy and the memory it was read from, until one of them lets go (the memory is
//! written over, the copy forgotten or stored elsewhere). A call that may panic in
//! between (a closure or trait method the caller supplies, a checked index, an
//! `unwrap`) unwinds through both: the copy is dropped where it is (moved into the
//! call, or owned here and dropped by the cleanup) and the memory's owner drops the
//! original later. Whatever the value owns is freed twice.

use std::collections::{BTreeMap, BTreeSet};

use tensor_lint_analyzer::dataflow::PointsTo;
use tensor_lint_analyzer::ir::{BodyId, DuplicateKind, EscapeKind, FnIr, LeakKind, Op, ValueId};
use tensor_lint_analyzer::source::Span;

use crate::context::{LintContext, LintFinding};
use crate::diagnostic::{Diagnostic, Label, Severity};

use super::DOUBLE_FREE;

/// Where a statement is: block and index.
type At = (usize, usize);

/// What flows along the body: the copies alive (by the statement that made them,
/// with the values holding them), and the owners whose length the code sets itself
/// (or that are forgotten).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    copies: BTreeMap<At, BTreeSet<ValueId>>,
    managed_owners: BTreeSet<ValueId>,
}

impl State {
    fn join(&mut self, other: &State) {
        for (at, holders) in &other.copies {
            self.copies.entry(*at).or_default().extend(holders);
        }
        self.managed_owners.extend(&other.managed_owners);
    }
}

/// Reports each copy alive at a call that may unwind and drop it, in `body`.
pub(super) fn unwinding_double_drops(
    cx: &LintContext<'_>,
    f: &FnIr,
    pt: &PointsTo,
    body: BodyId,
    out: &mut Vec<LintFinding>,
) {
    let Some(b) = f.bodies.get(body.0 as usize) else {
        return;
    };
    let has_copies = b
        .blocks
        .iter()
        .flat_map(|block| &block.stmts)
        .any(|st| matches!(st.op, Op::Duplicate { .. }));
    if !has_copies {
        return;
    }
    // The memory a copy was read from, and whether a write to `value` may land there.
    let source = |at: At| match &b.blocks[at.0].stmts[at.1].op {
        Op::Duplicate { src, .. } => Some(*src),
        _ => None,
    };
    let may_write = |value: ValueId, src: ValueId| {
        let (written, read) = (pt.roots(value), pt.roots(src));
        if written.is_empty() || read.is_empty() {
            value == src
        } else {
            written.iter().any(|r| read.contains(r))
        }
    };
    let owners = super::Owners::new(f, b, pt);
    let same_owner = |a: ValueId, c: ValueId| owners.same(a, c);
    let transfer = |k: usize, mut state: State, mut found: Option<&mut Vec<(At, At)>>| {
        for (i, st) in b.blocks[k].stmts.iter().enumerate() {
            match &st.op {
                Op::Duplicate { dst, src, how, .. } => {
                    let managed = state.managed_owners.iter().any(|o| same_owner(*o, *src));
                    if !managed {
                        // A copy into memory has no value holding it: the owner drops it.
                        let holders = if *how != DuplicateKind::Read {
                            BTreeSet::new()
                        } else {
                            BTreeSet::from([*dst])
                        };
                        state.copies.insert((k, i), holders);
                    }
                }
                Op::Assign { dst, src } => {
                    for holders in state.copies.values_mut() {
                        if holders.contains(src) {
                            holders.insert(*dst);
                        }
                    }
                }
                Op::MayUnwind { drops, .. } => {
                    if let Some(found) = found.as_deref_mut() {
                        for (at, holders) in &state.copies {
                            let in_memory = holders.is_empty();
                            if in_memory || drops.iter().any(|d| holders.contains(d)) {
                                found.push((*at, (k, i)));
                            }
                        }
                    }
                }
                // The copy is forgotten, stored elsewhere or handed to a call that may
                // keep it: the memory is its one owner again (or nothing here says).
                Op::Escape { value, how } => {
                    let forgets_owner = matches!(
                        how,
                        EscapeKind::Leaked {
                            kind: LeakKind::Forget,
                            ..
                        }
                    );
                    state.copies.retain(|at, holders| {
                        !holders.contains(value)
                            && !(forgets_owner
                                && source(*at).is_some_and(|s| pt.may_share_root(*value, s)))
                    });
                    // A forgotten owner drops nothing: copies of its values are not
                    // dropped twice.
                    if forgets_owner {
                        state.managed_owners.insert(*value);
                    }
                }
                Op::Call { args, .. } => {
                    state
                        .copies
                        .retain(|_, holders| !args.iter().any(|a| holders.contains(a)));
                }
                Op::Write { value, .. } | Op::Store { value, .. } => {
                    state
                        .copies
                        .retain(|at, _| !source(*at).is_some_and(|s| may_write(*value, s)));
                }
                Op::SetLen { value, .. } => {
                    state.managed_owners.insert(*value);
                    state
                        .copies
                        .retain(|at, _| !source(*at).is_some_and(|s| same_owner(s, *value)));
                }
                _ => {}
            }
        }
        state
    };
    // May-analysis: a copy counts as alive at a block when it is on some path into it.
    let entry = super::forward_states(
        b,
        State::default(),
        |k, state| transfer(k, state, None),
        |old, exit| {
            let mut merged = old.clone();
            merged.join(exit);
            merged
        },
    );
    let mut found = Vec::new();
    for (k, state) in entry.iter().enumerate() {
        if let Some(state) = state.clone() {
            transfer(k, state, Some(&mut found));
        }
    }
    // Values copied or dropped in place are reported where the function itself sets
    // the owner's count afterwards (too late): a helper that only copies or drops
    // leaves the count to its caller.
    let counted_later = |at: At, src: ValueId| {
        let sets = |st: &tensor_lint_analyzer::ir::Stmt| match &st.op {
            Op::SetLen { value, .. } => same_owner(*value, src),
            _ => false,
        };
        if b.blocks[at.0].stmts[at.1 + 1..].iter().any(sets) {
            return true;
        }
        let mut seen = BTreeSet::new();
        let mut work: Vec<usize> = b.blocks[at.0].term.successors().iter().map(|s| s.0 as usize).collect();
        while let Some(k) = work.pop() {
            if !seen.insert(k) {
                continue;
            }
            if b.blocks[k].stmts.iter().any(sets) {
                return true;
            }
            work.extend(b.blocks[k].term.successors().iter().map(|s| s.0 as usize));
        }
        false
    };
    found.retain(|&(copy, _)| match &b.blocks[copy.0].stmts[copy.1].op {
        Op::Duplicate {
            src,
            how: DuplicateKind::Dropped | DuplicateKind::Copied,
            ..
        } => counted_later(copy, *src),
        _ => true,
    });
    // One finding per copy: the first call after it that may unwind (one in its own
    // block first).
    found.sort_by_key(|&(copy, unwind)| (copy, unwind.0 != copy.0 || unwind.1 < copy.1, unwind));
    let mut reported: BTreeSet<At> = BTreeSet::new();
    let mut at_points: BTreeSet<At> = BTreeSet::new();
    for (copy, unwind) in found {
        // One finding per copy, and one per call that may panic (two copies before
        // one call are one finding).
        if !reported.insert(copy) || !at_points.insert(unwind) {
            continue;
        }
        let (Op::Duplicate { dst, how, .. }, Op::MayUnwind { cause, .. }) = (
            &b.blocks[copy.0].stmts[copy.1].op,
            &b.blocks[unwind.0].stmts[unwind.1].op,
        ) else {
            continue;
        };
        let made = b.blocks[copy.0].stmts[copy.1].span;
        let at = b.blocks[unwind.0].stmts[unwind.1].span;
        out.push(LintFinding {
            lint: &DOUBLE_FREE,
            proven: true,
            diagnostic: match how {
                DuplicateKind::Read => diagnostic(cx, f, *dst, made, cause, at),
                DuplicateKind::Copied => copied_diagnostic(cx, made, cause, at),
                DuplicateKind::Dropped => dropped_diagnostic(cx, made, cause, at),
                DuplicateKind::Uninit => placeholder_diagnostic(cx, made, cause, at),
            },
        });
    }
}

fn diagnostic(
    cx: &LintContext<'_>,
    f: &FnIr,
    copy: ValueId,
    read: Span,
    cause: &str,
    at: Span,
) -> Diagnostic {
    let name = f.values.get(copy.0 as usize).and_then(|v| v.name.clone());
    let (message, what) = match &name {
        Some(n) => (
            format!("a panic here drops `{n}` and the value it was copied from"),
            format!("`{n}`"),
        ),
        None => (
            "a panic here drops a bitwise copy and the value it was copied from".to_string(),
            "the copy".to_string(),
        ),
    };
    let read_here = match crate::describe::snippet(cx, read) {
        Some(s) => format!("{what} is a bitwise copy of what `{s}` reads, which the memory still holds"),
        None => format!("{what} is a bitwise copy of what is read here, which the memory still holds"),
    };
    Diagnostic::new(
        Severity::Error,
        message,
        Label::new(
            at,
            format!("{cause} may panic here: unwinding drops {what}, and the memory's owner drops the original"),
        ),
    )
    .with_label(read, read_here)
    .with_note("one value dropped twice frees what it owns twice")
    .with_help("keep the copy from being dropped until the memory is written over: hold it in `ManuallyDrop` and cover the call with a guard whose `Drop` writes it back or aborts")
}

fn copied_diagnostic(cx: &LintContext<'_>, copy: Span, cause: &str, at: Span) -> Diagnostic {
    let copied = crate::describe::snippet(cx, copy).map_or_else(
        || "values are copied here".to_string(),
        |s| format!("`{s}` copies values"),
    );
    Diagnostic::new(
        Severity::Error,
        "a panic here drops the copied values twice".to_string(),
        Label::new(
            at,
            format!("{cause} may panic here: unwinding drops the owner with every slot it counts"),
        ),
    )
    .with_label(
        copy,
        format!("{copied}, and the slots they came from still hold them"),
    )
    .with_note("the owner still counts the slots the values were copied from, and the slots they were copied to hold the same values: each is dropped twice")
    .with_help("before the call, shrink the owner's length so that it counts no slot the values left (`set_len`), and restore it once every slot holds one value")
}

fn dropped_diagnostic(cx: &LintContext<'_>, drop: Span, cause: &str, at: Span) -> Diagnostic {
    let dropped = crate::describe::snippet(cx, drop).map_or_else(
        || "values are dropped here".to_string(),
        |s| format!("`{s}` drops values"),
    );
    let same = drop == at;
    let primary = if same {
        format!("{cause} may panic here, while the owner still counts the values it dropped")
    } else {
        format!("{cause} may panic here: unwinding drops the owner with every slot it counts")
    };
    let mut d = Diagnostic::new(
        Severity::Error,
        "a panic here drops values that were already dropped".to_string(),
        Label::new(at, primary),
    );
    if !same {
        d = d.with_label(drop, format!("{dropped} the owner still counts"));
    }
    d.with_note("unwinding drops the owner, and the owner drops every slot it counts, the values dropped here among them: each is dropped twice")
    .with_help("set the owner's length (or the fields that count its slots) before dropping the values, or cover the drops with a guard whose `Drop` sets it")
}

fn placeholder_diagnostic(cx: &LintContext<'_>, stored: Span, cause: &str, at: Span) -> Diagnostic {
    let stored_here = crate::describe::snippet(cx, stored).map_or_else(
        || "a placeholder never initialised is stored here".to_string(),
        |s| format!("`{s}` stores a placeholder never initialised"),
    );
    Diagnostic::new(
        Severity::Error,
        "a panic here drops a value that was never initialised".to_string(),
        Label::new(
            at,
            format!("{cause} may panic here: unwinding drops the owner, placeholder and all"),
        ),
    )
    .with_label(stored, stored_here)
    .with_note("the placeholder's bytes are no value: dropping it frees whatever they happen to point to")
    .with_help("hold the value in an `Option` and `take()` it, or move it out with a guard that writes a real value back on unwinding (`take_mut`, `replace_with`)")
}
