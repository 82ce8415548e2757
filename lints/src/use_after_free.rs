//! `use_after_free`: tensor memory read, written or viewed after its release.

crate::declare_lint! {
    /// ### What it does
    /// Reports a read, a write or a new view of memory after it was released on that
    /// path, through the released name or any alias of it (a copied raw pointer, a view
    /// built with `from_shape_ptr`, a slice from `from_raw_parts`, a copy kept in a
    /// struct field, a closure that captured it and is called later). The release is
    /// shown beside it. Releases include a foreign handle's destroying partner
    /// (`TF_DeleteGraph`), a callee that takes an owner by value and returns a view
    /// into it (the owner is dropped when the callee returns), and a closure that
    /// takes owners by value (`strings.into_iter().map(..)`, `Option::map`) and
    /// returns pointers into them: each is dropped when the closure returns, so the
    /// list of pointers collected from it dangles. A method that frees the block a
    /// field of its receiver points to and stores a fresh block in that field
    /// (`dealloc(self.ptr, ..); self.ptr = alloc(..)`) releases nothing of the
    /// caller's value, which still holds memory, only other memory.
    ///
    /// Pointers into the storage of a local or a
    /// temporary are followed too: a raw pointer made from a borrow of one (`&tmp as
    /// *const _`, a method that returns a pointer into its receiver called on a
    /// temporary, a field of an options struct set to such a pointer) that is
    /// dereferenced or handed to a call after the variable's storage is gone (the end
    /// of its statement, match arm or scope, as the compiler places it), and a pointer
    /// into a local or a by-value parameter that the function returns. Only variables
    /// of plain data are followed (numbers, raw pointers, arrays and structs of them,
    /// `Option`, `MaybeUninit`): a borrow of an owner (`Vec`, `CString`) reaches its
    /// heap memory, which the other rules follow, and so does a call on a variable
    /// that holds a pointer or a borrow (`iter.next()`, `bucket.as_ref()`). A
    /// temporary whose lifetime the compiler extends (`let p = &make() as *const _;`)
    /// lives to the end of its block and is not reported.
    ///
    /// Also a node retired while another pointer of the
    /// structure may still point to it: a method of a struct with two atomic pointers
    /// to nodes of one type (a queue's `head` and `tail`) loads one, moves it to
    /// another node (`compare_exchange`, `store`, `swap`) and hands a node of that type
    /// to crossbeam-epoch's `defer_destroy`, without ever looking at the other pointer,
    /// which another method of the type loads. When the node was the last one, the
    /// other pointer still points to it, and the thread that loads it next follows a
    /// pointer to freed memory. This is a warning: the structure's invariants may keep
    /// the two pointers apart. A method that reads the other pointer in any way is
    /// taken to have settled it, and destruction queued with `defer` (a closure) or
    /// through an epoch scheme of the crate's own is not followed.
    ///
    /// ### Why is this bad
    /// Released memory belongs to the allocator or the pool again. Reading it returns
    /// another tensor's data; writing it corrupts another tensor, usually one that a
    /// different thread owns by then.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let features = unsafe { std::alloc::alloc(layout) } as *mut f32;
    /// unsafe { std::alloc::dealloc(features as *mut u8, layout) };
    /// let first = unsafe { *features }; // read after the release
    /// ```
    /// The use must reach the released allocation on every path. After an owner is
    /// dropped (explicitly or at the end of its scope) only raw pointers and the views
    /// rebuilt from them can still reach its memory, so only those uses are reported;
    /// after `Box::from_raw` the rebuilt box owns the memory and its uses are fine.
    ///
    /// Use instead: finish every use before the release.
    /// ```rust,ignore
    /// let features = unsafe { std::alloc::alloc(layout) } as *mut f32;
    /// let first = unsafe { *features };
    /// unsafe { std::alloc::dealloc(features as *mut u8, layout) };
    /// ```
    pub USE_AFTER_FREE = "use_after_free", Deny, Correctness,
    "tensor memory used after its release",
    possible_is_warn = true
}

use tensor_lint_analyzer::dataflow::alloc_state::{PathAnswer, PathEnd, PathSearch, Step};
use tensor_lint_analyzer::dataflow::PointsTo;
use tensor_lint_analyzer::ir::{
    BodyId, Callee, DanglingPointer, FnIr, Op, ReleaseKind, RetiredReachable, RootId, ValueId,
    ValueKind, ViewOp,
};

use crate::context::{LintContext, LintFinding};
use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::double_free::{is_raii, release_sites, release_text, ReleaseSite};

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    // A truncated function lacks some of its ops: a missing release or allocation
    // would become a false finding.
    for f in cx.functions().filter(|f| !f.truncated) {
        let Some(facts) = cx.ir.facts(f.id) else {
            continue;
        };
        // What closures use and which values are raw: facts of the whole function,
        // computed once for all its bodies.
        let whole = WholeFn {
            closures: closure_uses(f, &facts.points_to),
            raw: raw_derived(f),
        };
        for b in 0..f.bodies.len() {
            check_body(f, &facts.points_to, &whole, BodyId(b as u32), out);
        }
    }
    for d in &cx.ir.dangling {
        out.push(LintFinding {
            lint: &USE_AFTER_FREE,
            proven: true,
            diagnostic: dangling_diagnostic(d),
        });
    }
    for r in &cx.ir.retired_reachable {
        out.push(LintFinding {
            lint: &USE_AFTER_FREE,
            proven: false,
            diagnostic: retired_diagnostic(r),
        });
    }
}

/// A node retired while another field of the structure may still point to it.
fn retired_diagnostic(r: &RetiredReachable) -> Diagnostic {
    let (node, moved, still) = (&r.node, &r.moved, &r.still);
    Diagnostic::new(
        Severity::Warning,
        format!("this `{node}` is destroyed while `self.{still}` may still point to it"),
        Label::new(
            r.at,
            format!("the `{node}` is freed once no thread is pinned; `self.{still}` is never looked at here"),
        ),
    )
    .with_code(USE_AFTER_FREE.code())
    .with_label(r.moved_at, format!("`self.{moved}` is moved off the node here"))
    .with_label(
        r.used_at,
        format!("`{}` uses `self.{still}`, and may follow it to the freed node", r.used_in),
    )
    .with_note(format!(
        "when the node is the last one, `self.{moved}` and `self.{still}` both point to it"
    ))
    .with_help(format!(
        "before destroying the node, move `self.{still}` off it too: load it, and if it still points to the node, `compare_exchange` it to the next one"
    ))
}

/// A pointer into a local or a temporary used after the variable's storage is gone, or
/// returned.
fn dangling_diagnostic(d: &DanglingPointer) -> Diagnostic {
    let what = match &d.target {
        Some(name) => format!("`{name}`"),
        None => "a temporary".to_string(),
    };
    if d.returned {
        return Diagnostic::new(
            Severity::Error,
            format!("this returns a pointer to {what}, which is gone once the function returns"),
            Label::new(d.at, "the pointer is returned here"),
        )
        .with_code(USE_AFTER_FREE.code())
        .with_label(d.target_span, format!("{what} lives in this function's frame"))
        .with_help(
            "return the value itself, or take it by reference (`&self`) so that the pointer points into the caller's value",
        );
    }
    // What the pointer points into, how it goes, and the fix: a variable or a temporary.
    let (into, after, gone, help) = match &d.target {
        Some(name) => (
            format!("a pointer to `{name}`"),
            format!("`{name}` is gone"),
            format!("`{name}` goes out of scope here"),
            format!("keep {what} alive (declare it in an outer scope) until the pointer's last use"),
        ),
        None => (
            "a pointer into a temporary".to_string(),
            "the temporary is dropped".to_string(),
            "the temporary is dropped here".to_string(),
            "bind the temporary to a variable (`let v = ..;`) that lives until the pointer's last use".to_string(),
        ),
    };
    let used = match &d.callee {
        Some(callee) if !callee.is_empty() => format!("the pointer is handed to `{callee}` here, after {after}"),
        _ => format!("the pointer is used here, after {after}"),
    };
    let mut diag = Diagnostic::new(
        Severity::Error,
        format!("{into} is used after {after}"),
        Label::new(d.at, used),
    )
    .with_code(USE_AFTER_FREE.code())
    .with_label(d.gone, gone);
    if d.target_span != d.gone {
        diag = diag.with_label(d.target_span, format!("the pointer points into {what}"));
    }
    diag.with_help(help)
}

/// Pointer steps whose offset is not known: address arithmetic, not an access.
const POINTER_ARITHMETIC: &[&str] = &[
    "add",
    "sub",
    "offset",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_offset",
    "byte_add",
    "byte_sub",
];

/// How a statement touches memory, when it does.
fn use_of(f: &FnIr, op: &Op) -> Option<(ValueId, &'static str)> {
    match op {
        Op::Read { value, .. } => Some((*value, "read")),
        Op::Write { value, .. } => Some((*value, "written")),
        Op::Claim { value, .. } => Some((*value, "borrowed mutably")),
        Op::InPlace { dst, .. } => Some((*dst, "overwritten in place")),
        // A pointer cast or step is arithmetic on the address; a view reaches the memory.
        Op::View { dst, src, how } => {
            let raw = f
                .values
                .get(dst.0 as usize)
                .is_some_and(|v| matches!(v.kind, ValueKind::RawPtr(_)));
            let arithmetic = match how {
                ViewOp::Offset(_) => true,
                ViewOp::Opaque(name) => POINTER_ARITHMETIC.contains(&name.as_str()),
                _ => false,
            };
            (!raw && !arithmetic).then_some((*src, "viewed"))
        }
        _ => None,
    }
}

/// Values that are raw pointers or were rebuilt from one (`from_raw_parts`,
/// `from_shape_ptr`): the only ways to reach memory whose owner was dropped.
fn raw_derived(f: &FnIr) -> Vec<bool> {
    let mut raw: Vec<bool> = f
        .values
        .iter()
        .map(|v| matches!(v.kind, ValueKind::RawPtr(_)))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (_, _, stmt) in f.stmts() {
            if let Op::View { dst, src, .. } | Op::Assign { dst, src } = &stmt.op {
                let from = raw.get(src.0 as usize).copied().unwrap_or(false);
                if let Some(d) = raw.get_mut(dst.0 as usize) {
                    if from && !*d {
                        *d = true;
                        changed = true;
                    }
                }
            }
        }
    }
    raw
}

/// Per closure body, the captured values through which its own statements read or
/// write memory: calling the closure uses that memory. (A closure nested in it is seen
/// where that one is called.)
fn closure_uses(f: &FnIr, pt: &PointsTo) -> Vec<Vec<(RootId, ValueId)>> {
    let mut sets: Vec<Vec<(RootId, ValueId)>> = vec![Vec::new(); f.bodies.len()];
    for (b, body) in f.bodies.iter().enumerate() {
        let tensor_lint_analyzer::ir::BodyKind::Closure { captures, .. } = &body.kind else {
            continue;
        };
        for stmt in body.blocks.iter().flat_map(|k| &k.stmts) {
            let Some((v, _)) = use_of(f, &stmt.op) else {
                continue;
            };
            for &root in pt.roots(v) {
                if let Some(&c) = captures.iter().find(|&&c| pt.roots(c).contains(&root)) {
                    sets[b].push((root, c));
                }
            }
        }
    }
    for s in &mut sets {
        s.sort_unstable();
        s.dedup();
    }
    sets
}

/// The use a statement makes of root `r`: its own access, or the access of the closure
/// it calls.
fn use_of_root(
    f: &FnIr,
    closures: &[Vec<(RootId, ValueId)>],
    op: &Op,
    r: RootId,
) -> Option<(ValueId, &'static str)> {
    match op {
        Op::Call {
            callee: Callee::Closure(c),
            ..
        } => closures
            .get(c.0 as usize)?
            .iter()
            .find(|(root, _)| *root == r)
            .map(|&(_, v)| (v, "used by the closure called")),
        _ => use_of(f, op),
    }
}

/// See [`check`].
struct WholeFn {
    closures: Vec<Vec<(RootId, ValueId)>>,
    raw: Vec<bool>,
}

fn check_body(f: &FnIr, pt: &PointsTo, whole: &WholeFn, body: BodyId, out: &mut Vec<LintFinding>) {
    let (closures, raw) = (&whole.closures, &whole.raw);
    let mut reported = Vec::new();
    let paths = PathSearch::new(f, body);
    for release in release_sites(f, pt, body) {
        // The rebuilt box owns the memory: using it is what `from_raw` is for.
        if matches!(release.how, ReleaseKind::FromRaw(_)) {
            continue;
        }
        let r = release.root;
        let only_raw = is_raii(&release.how);
        let answer = paths.run(
            release.block,
            release.index + 1,
            |block, index, stmt| match &stmt.op {
                // Allocated again, or loaded again: another block from here on.
                Op::Alloc { root, .. } | Op::Load { root, .. } if *root == r => Step::Prune,
                op if release.undone_by(op, pt) => Step::Prune,
                Op::Release { value, .. } if pt.roots(*value).contains(&r) => Step::Prune,
                op => match use_of_root(f, closures, op, r) {
                    Some((v, _))
                        if pt.roots(v) == [r]
                            && (!only_raw || raw.get(v.0 as usize).copied().unwrap_or(false)) =>
                    {
                        if reported.contains(&(block, index)) {
                            Step::Prune
                        } else {
                            Step::Found
                        }
                    }
                    _ => Step::Continue,
                },
            },
            |_, _| false,
        );
        let PathAnswer::Found(PathEnd::Stmt { block, index }, _) = answer else {
            continue;
        };
        let Some(stmt) = f
            .bodies
            .get(body.0 as usize)
            .and_then(|b| b.blocks.get(block.0 as usize))
            .and_then(|b| b.stmts.get(index))
        else {
            continue;
        };
        let Some((used, how)) = use_of_root(f, closures, &stmt.op, r) else {
            continue;
        };
        reported.push((block, index));
        out.push(LintFinding {
            lint: &USE_AFTER_FREE,
            proven: true,
            diagnostic: diagnostic(f, pt, &release, used, how, stmt.span, r),
        });
    }
}

fn diagnostic(
    f: &FnIr,
    pt: &PointsTo,
    release: &ReleaseSite,
    used: ValueId,
    how: &str,
    span: tensor_lint_analyzer::source::Span,
    root: RootId,
) -> Diagnostic {
    let used_name = crate::describe::memory_name(f, pt, used, root);
    let released_name = crate::describe::memory_name(f, pt, release.value, root);
    let what = used_name
        .as_ref()
        .map_or_else(|| "released memory".to_string(), |n| format!("`{n}`"));
    // A use written before the release (or inside it, an argument evaluated first),
    // reached from the release, runs on a later iteration.
    // A callee that takes an owner by value and returns a view of it: the release and
    // the view are one call.
    let dropped_by_callee = release.span == span && how == "viewed";
    // A use before the release in the text comes round again, unless it encloses the
    // release (a call whose arguments drop what it is then given).
    let later_iteration = !dropped_by_callee
        && !(span.contains(release.span) && span != release.span)
        && (span.lo < release.span.lo || release.span.contains(span));
    if dropped_by_callee {
        let owner = released_name
            .as_ref()
            .map_or_else(|| "its argument".to_string(), |n| format!("`{n}`"));
        return Diagnostic::new(
            Severity::Error,
            format!("this call returns a view into {owner}, which it drops when it returns"),
            Label::new(
                span,
                format!("{owner} is moved into the call and dropped there; the view returned dangles"),
            ),
        )
        .with_code(USE_AFTER_FREE.code())
        .with_help(
            "take the parameter by reference, so that the caller's owner outlives the view",
        );
    }
    let (message, primary) = if later_iteration {
        (
            format!("{what} is {how} on the next iteration after its memory was released"),
            format!("{how} here on the next iteration"),
        )
    } else {
        (
            format!("{what} is {how} after its memory was released"),
            format!("{how} here after the release"),
        )
    };
    // Only a temporary's drop releases memory through a pointer at a scope's end:
    // `let p = vec![..].as_ptr();` drops the vector when the statement ends; the
    // temporary dropped is a value with no name.
    let temporary = release.how == ReleaseKind::ScopeEnd
        && (matches!(f.value(release.value).kind, ValueKind::RawPtr(_))
            || f.value(release.value).name.is_none());
    let into_closure = release.how == ReleaseKind::ClosureEnd;
    let released = if into_closure {
        format!(
            "{} is moved into this closure, which drops it when it returns: the pointers it makes dangle",
            released_name
                .as_ref()
                .map_or_else(|| "the value".to_string(), |n| format!("`{n}`"))
        )
    } else if temporary {
        "this temporary is dropped at the end of the statement, and the pointer into it dangles"
            .to_string()
    } else {
        format!(
            "{} is {} here",
            released_name
                .as_ref()
                .map_or_else(|| "the memory".to_string(), |n| format!("`{n}`")),
            release_text(&release.how)
        )
    };
    let mut d = Diagnostic::new(Severity::Error, message, Label::new(span, primary));
    // One span never carries both sides: the release is then said in a note.
    d = if release.span == span {
        d.with_note(released)
    } else {
        d.with_label(release.span, released)
    };
    d = d.with_code(USE_AFTER_FREE.code());
    if let (Some(u), Some(r)) = (&used_name, &released_name) {
        if u != r {
            d = d.with_note(format!("`{u}` points into the memory of `{r}`"));
        }
    }
    if into_closure {
        return d.with_help(
            "map over references (`.iter()`, `.as_ref().map(..)`) so that the values outlive the pointers made from them",
        );
    }
    if temporary {
        return d.with_help(
            "keep the value in a binding (`let v = ..; let p = v.as_ptr();`) so that it lives as long as the pointer",
        );
    }
    d.with_help("finish every use of the memory before it is released, or release it later")
}
