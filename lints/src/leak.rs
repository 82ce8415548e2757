//! `leak`: tensor memory that is not released on some path.

crate::declare_lint! {
    /// ### What it does
    /// Follows every allocation of tensor memory (`std::alloc::alloc*`, `Box::into_raw`,
    /// `Box::leak`, `mem::forget` or `ManuallyDrop` of a buffer, a call to a function
    /// annotated `#[tensor_lint::alloc]` such as a pool checkout, a handle made by a
    /// foreign `*Create`/`*_new` function whose `*Destroy`/`*_free` partner the crate
    /// declares, or a foreign function returning `*mut T` when the crate declares one
    /// releasing function of `*mut T`, or one storing through an out-parameter with an
    /// allocator struct it is given, directly or through a wrapper that returns it, and
    /// a list of such handles collected from `map`) along every path of the
    /// function, and reports a path that reaches the function's exit with the memory
    /// neither released nor handed on (returned, stored into something that owns it,
    /// passed to a function that takes ownership). Early `return`, `?`, `break` and
    /// `continue` are paths too, and so is a pointer overwritten in a loop while it
    /// still holds a live allocation.
    ///
    /// ### Why is this bad
    /// A kernel runs thousands of times per second. A buffer lost on a rare error path
    /// drains the pool or the heap a little on every frame until the process is killed,
    /// usually far from the code that lost it.
    ///
    /// ### Example
    /// ```rust,ignore
    /// #[tensor_lint::alloc]
    /// fn checkout(pool: &Pool, len: usize) -> *mut f32 { /* ... */ }
    ///
    /// fn voxelize(pool: &Pool, points: &[f32]) -> Result<(), Error> {
    ///     let grid = checkout(pool, 4096);
    ///     validate(points)?; // returns here without releasing `grid`
    ///     fill(grid, points);
    ///     pool.give_back(grid);
    ///     Ok(())
    /// }
    /// ```
    /// Use instead: release on every path, best with a guard whose `Drop` releases.
    /// Memory handed to code the analyzer cannot see (an unresolved call, a callee
    /// outside the crate) counts as handed on, and so does memory a closure releases
    /// when it is called, memory stored in a struct that is stored whole
    /// (`list.push(Entry { packet, .. })`), and an address handed to a function as an
    /// integer (`register(p as usize)`) or as a reference its parameter's type says may
    /// be kept for ever (`&'static T`: `pool.manage(Box::leak(block))`); an allocation
    /// whose null check sends the path away
    /// (`if p.is_null() { return }`) is not held on that path. Two branches on one
    /// flag that is never reassigned take the same side, so
    /// `if need { alloc } .. if need { release }` is quiet. Owners with `Drop`
    /// (`Vec`, `Array`, tensors, the crate's own types with an `impl Drop`) are released
    /// on every exit by the compiler and are only reported once ownership is given up
    /// with `mem::forget`, `Box::leak`, `Box::into_raw` or `ManuallyDrop::new`; a bitwise
    /// copy (`mem::transmute_copy`, `ptr::read`) of a forgotten owner takes it over.
    /// `mem::forget(self)` also gives up each field that owns memory of its own (a type
    /// with `impl Drop`, an `Arc`, a `Vec`) and that the function did not take out
    /// first (or reach through a borrow of the whole value a call turned into a
    /// reference or pointer, `self.deref()`, which may point into any field); fields
    /// whose type borrows its storage (`Vec<'arena, T>`) are left to their arena. A handle moved into a struct literal of a type with `impl Drop` is
    /// that owner's to release, unless that `Drop`
    /// releases only under a `bool` field of the struct (`if self.owned { .. }`, `if
    /// !self.borrowed { .. }`) and the literal sets the field the other way: memory this
    /// function allocated, held by `Buffer { inner, owned: false }`, is never released.
    /// The flag must be a constant in the literal; a `Drop` that frees under a test of
    /// anything else (an enum variant, a pointer being null) is not read as a flag.
    /// Memory returned inside a tuple, an array or a struct reaches the caller, and so
    /// does memory a method takes as `self` and gives back as `Self`.
    /// ```rust,ignore
    /// fn voxelize(pool: &Pool, points: &[f32]) -> Result<(), Error> {
    ///     validate(points)?;
    ///     let grid = checkout(pool, 4096);
    ///     fill(grid, points);
    ///     pool.give_back(grid);
    ///     Ok(())
    /// }
    /// ```
    pub LEAK = "leak", Warn, Correctness, "tensor memory that is not released on some path"
}

use tensor_lint_analyzer::dataflow::alloc_state::{PathAnswer, PathEnd, PathSearch, Step};
use tensor_lint_analyzer::dataflow::{FnFacts, PointsTo};
use tensor_lint_analyzer::ir::{
    BlockId, BodyId, Callee, EscapeKind, FnIr, LeakKind, Op, ReleaseKind, ReleasedBy, ReturnKind,
    RootId, RootOrigin, Terminator, TyClass, ValueId, ValueKind,
};
use tensor_lint_analyzer::source::Span;

use crate::context::{LintContext, LintFinding};
use crate::describe::memory_name;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Label, Severity, Suggestion};

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

/// Where this function takes on the duty to release a root.
struct Obligation {
    root: RootId,
    block: BlockId,
    index: usize,
    span: Span,
    /// The value that holds the memory at that point.
    value: ValueId,
    /// `Some((api, how))` when ownership was given up (`mem::forget`, `Box::into_raw`, ...).
    given_up: Option<(String, LeakKind)>,
}

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    // A truncated function lacks some of its ops: a missing release or allocation
    // would become a false finding.
    for f in cx.functions().filter(|f| !f.truncated) {
        let Some(facts) = cx.ir.facts(f.id) else {
            continue;
        };
        // What each closure releases: a fact of the whole function, for all its bodies.
        let released_in = closure_effects(f, &facts.points_to);
        for b in 0..f.bodies.len() {
            check_body(cx, f, facts, &released_in, BodyId(b as u32), out);
        }
    }
}

fn check_body(
    cx: &LintContext<'_>,
    f: &FnIr,
    facts: &FnFacts,
    released_in: &[Vec<RootId>],
    body: BodyId,
    out: &mut Vec<LintFinding>,
) {
    let pt = &facts.points_to;
    let paths = PathSearch::new(f, body);
    for ob in obligations(f, pt, body) {
        let r = ob.root;
        // A path to where the function ends is the clearer report (it shows the exit and
        // the `continue` that skips the release); a path that only comes round to the
        // allocation again is reported when there is none.
        let search = |realloc: Step| paths.run(
            ob.block,
            ob.index + 1,
            |_, _, stmt| match &stmt.op {
                Op::Alloc { root, .. } if *root == r => realloc,
                Op::Release { value, .. } | Op::AssumeNull { value }
                    if pt.roots(*value).contains(&r) =>
                {
                    Step::Prune
                }
                // A second give-up of the same memory is its own obligation.
                Op::Escape { value, .. } if pt.roots(*value).contains(&r) => Step::Prune,
                Op::Call {
                    callee: Callee::Unknown(_),
                    args,
                    ..
                } if args.iter().any(|a| holds(f, pt, *a, r)) => Step::Prune,
                // A closure that releases the memory, handed to a call (deferred
                // destruction: `guard.defer(move || drop(Box::from_raw(p)))`), takes
                // the duty with it.
                Op::Call {
                    callee: Callee::Unknown(_) | Callee::Local(_),
                    args,
                    ..
                } if args.iter().any(|a| {
                    matches!(f.values.get(a.0 as usize).map(|v| &v.kind),
                        Some(ValueKind::Closure(c)) if released_in
                            .get(c.0 as usize)
                            .is_some_and(|s| s.contains(&r)))
                }) =>
                {
                    Step::Prune
                }
                Op::Call {
                    callee: Callee::Closure(c),
                    ..
                } if released_in
                    .get(c.0 as usize)
                    .is_some_and(|s| s.contains(&r)) =>
                {
                    Step::Prune
                }
                Op::Parallel(region)
                    if region.tasks.iter().any(|t| {
                        released_in
                            .get(t.body.0 as usize)
                            .is_some_and(|s| s.contains(&r))
                    }) =>
                {
                    Step::Prune
                }
                Op::Spawn { task, .. }
                    if released_in
                        .get(task.body.0 as usize)
                        .is_some_and(|s| s.contains(&r)) =>
                {
                    Step::Prune
                }
                _ => Step::Continue,
            },
            |_, _| true,
        );
        let answer = match search(Step::Prune) {
            PathAnswer::Found(end, path) => PathAnswer::Found(end, path),
            _ => search(Step::Found),
        };
        let PathAnswer::Found(end, path) = answer else {
            continue;
        };
        let mut d = diagnostic(f, pt, body, &ob, end);
        if let Some(suggestion) = release_before_return(cx, f, pt, body, &ob, end) {
            d = d.with_suggestion(suggestion);
        }
        if let Some((span, jump)) = loop_jump(cx, f, body, &path) {
            let what = memory_name(f, pt, ob.value, ob.root)
                .map_or_else(|| "the allocation".to_string(), |n| format!("`{n}`"));
            d = d.with_label(span, format!("`{jump}` skips the release of {what}"));
        }
        out.push(LintFinding {
            lint: &LEAK,
            proven: true,
            diagnostic: d,
        });
    }
}

/// For an early `return`: insert a copy of a release this function already writes for
/// the same binding (`unsafe { pool.give_back(grid, cells) };`) right before it. The
/// source is read to copy that call; the edit may need adjusting (a different length),
/// so it is offered as maybe incorrect.
fn release_before_return(
    cx: &LintContext<'_>,
    f: &FnIr,
    pt: &PointsTo,
    body: BodyId,
    ob: &Obligation,
    end: PathEnd,
) -> Option<Suggestion> {
    let PathEnd::Exit { block } = end else {
        return None;
    };
    let b = f.bodies.get(body.0 as usize)?;
    let exit = b.blocks.get(block.0 as usize)?;
    if !matches!(
        exit.term,
        Terminator::Return {
            kind: ReturnKind::Early,
            ..
        }
    ) {
        return None;
    }
    let name = memory_name(f, pt, ob.value, ob.root)?;
    let file = cx.sources.files().find(|s| s.id == exit.term_span.file)?;
    let text = file.text.as_str();
    // A release of this binding written elsewhere in the body, by a call.
    let (release, how) = b
        .blocks
        .iter()
        .flat_map(|k| &k.stmts)
        .find_map(|s| match &s.op {
            Op::Release { value, how }
                if !matches!(
                    how,
                    ReleaseKind::ScopeEnd | ReleaseKind::Drop | ReleaseKind::ClosureEnd
                )
                    && pt.roots(*value) == [ob.root]
                    && memory_name(f, pt, *value, ob.root).as_deref() == Some(name.as_str()) =>
            {
                Some((s.span, how.clone()))
            }
            _ => None,
        })?;
    let call = text.get(release.range())?;
    if !call.contains(name.as_str()) || call.contains('\n') {
        return None;
    }
    let before = text.get(..release.lo as usize)?.trim_end();
    let needs_unsafe = how == ReleaseKind::Dealloc || before.ends_with("unsafe {");
    let statement = if needs_unsafe {
        format!("unsafe {{ {call} }};")
    } else {
        format!("{call};")
    };
    let at = exit.term_span.lo as usize;
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let indent = text.get(line_start..at)?;
    let replacement = if indent.chars().all(char::is_whitespace) {
        format!("{statement}\n{indent}")
    } else {
        format!("{statement} ")
    };
    Some(Suggestion {
        message: format!("release `{name}` before returning"),
        edits: vec![Edit {
            span: Span::new(exit.term_span.file, at, at),
            replacement,
        }],
        applicability: Applicability::MaybeIncorrect,
    })
}

/// The first `break` or `continue` on the leaking path: the jump that skips the
/// release. The source is read only to word the label.
fn loop_jump(
    cx: &LintContext<'_>,
    f: &FnIr,
    body: BodyId,
    path: &[BlockId],
) -> Option<(Span, &'static str)> {
    let b = f.bodies.get(body.0 as usize)?;
    let file = cx.sources.files().find(|s| s.id == b.span.file)?;
    path.iter().find_map(|k| {
        let block = b.blocks.get(k.0 as usize)?;
        if !matches!(block.term, Terminator::Goto(_)) {
            return None;
        }
        let text = file.text.get(block.term_span.range())?;
        ["continue", "break"]
            .into_iter()
            .find(|kw| text.starts_with(kw))
            .map(|kw| (block.term_span, kw))
    })
}

/// Every point of `body` where the function becomes responsible for releasing memory.
fn obligations(f: &FnIr, pt: &PointsTo, body: BodyId) -> Vec<Obligation> {
    let mut out = Vec::new();
    let Some(b) = f.bodies.get(body.0 as usize) else {
        return out;
    };
    for (k, block) in b.blocks.iter().enumerate() {
        for (i, stmt) in block.stmts.iter().enumerate() {
            let (root, value, given_up) = match &stmt.op {
                Op::Alloc { dst, root, .. } => {
                    let owed = f.roots.get(root.0 as usize).is_some_and(|r| {
                        matches!(r.released_by, ReleasedBy::Dealloc | ReleasedBy::Function(_))
                            && !r.held_from_use
                    });
                    if !owed {
                        continue;
                    }
                    (*root, *dst, None)
                }
                // A handle an out-parameter received is held on the paths that use it:
                // read or write it, or hand it to a call (the other paths are where the
                // call failed and made nothing).
                Op::Read { .. } | Op::Write { .. } | Op::Call { .. } => {
                    let used: Vec<ValueId> = match &stmt.op {
                        Op::Read { value, .. } | Op::Write { value, .. } => vec![*value],
                        Op::Call { args, .. } => args.clone(),
                        _ => Vec::new(),
                    };
                    for value in used {
                        let [root] = pt.roots(value) else {
                            continue;
                        };
                        let held = f.roots.get(root.0 as usize).is_some_and(|r| {
                            r.held_from_use && r.origin == RootOrigin::Alloc
                        });
                        if !held || out.iter().any(|o: &Obligation| o.root == *root) {
                            continue;
                        }
                        let span = f.roots[root.0 as usize].span;
                        out.push(Obligation {
                            root: *root,
                            block: BlockId(k as u32),
                            index: i,
                            span,
                            value,
                            given_up: None,
                        });
                    }
                    continue;
                }
                Op::Escape {
                    value,
                    how: EscapeKind::Leaked { api, kind },
                } => {
                    let [root] = pt.roots(*value) else {
                        continue;
                    };
                    let owned_here = f.roots.get(root.0 as usize).is_some_and(|r| {
                        r.origin == RootOrigin::Alloc
                            && matches!(r.released_by, ReleasedBy::Drop | ReleasedBy::BoxFromRaw)
                    });
                    if !owned_here || holds_no_heap(f, pt, *root) {
                        continue;
                    }
                    (*root, *value, Some((api.clone(), *kind)))
                }
                _ => continue,
            };
            out.push(Obligation {
                root,
                block: BlockId(k as u32),
                index: i,
                span: stmt.span,
                value,
                given_up,
            });
        }
    }
    out
}

/// Whether root `r` never owns a heap block: its elements take no bytes (`vec![(); n]`)
/// or it starts empty (`Vec::new()`) and nothing is ever added to it.
fn holds_no_heap(f: &FnIr, pt: &PointsTo, r: RootId) -> bool {
    let Some(root) = f.roots.get(r.0 as usize) else {
        return false;
    };
    if root.elem_bytes == 0 {
        return true;
    }
    let empty = root
        .shape
        .as_ref()
        .is_some_and(|s| s.iter().any(|d| d.as_const() == Some(0)));
    empty
        && !f.stmts().any(|(_, _, s)| match &s.op {
            Op::Write { value, .. } | Op::InPlace { dst: value, .. } => {
                pt.roots(*value).contains(&r)
            }
            Op::Call { args, .. } => args.first().is_some_and(|a| pt.roots(*a).contains(&r)),
            _ => false,
        })
}

/// Whether `v` carries memory of `r` (so a call that receives it may keep it).
fn holds(f: &FnIr, pt: &PointsTo, v: ValueId, r: RootId) -> bool {
    f.values.get(v.0 as usize).is_some_and(|val| {
        matches!(
            val.kind,
            ValueKind::Root(_) | ValueKind::RawPtr(_) | ValueKind::View(_)
        )
    }) && pt.roots(v).contains(&r)
}

/// Per body, the roots it releases or hands on (including the bodies nested in it):
/// calling a closure or running a task that does so releases them.
fn closure_effects(f: &FnIr, pt: &PointsTo) -> Vec<Vec<RootId>> {
    let mut sets: Vec<Vec<RootId>> = vec![Vec::new(); f.bodies.len()];
    for (b, body) in f.bodies.iter().enumerate() {
        for block in &body.blocks {
            for stmt in &block.stmts {
                let value = match &stmt.op {
                    Op::Release { value, .. } => *value,
                    Op::Escape { value, how } if !matches!(how, EscapeKind::Leaked { .. }) => {
                        *value
                    }
                    _ => continue,
                };
                sets[b].extend_from_slice(pt.roots(value));
            }
        }
    }
    // Nested bodies come after their parents, so one reverse pass carries effects up.
    for b in (0..f.bodies.len()).rev() {
        if let tensor_lint_analyzer::ir::BodyKind::Closure { parent, .. } = &f.bodies[b].kind {
            let p = parent.0 as usize;
            if p < b {
                let inner = sets[b].clone();
                sets[p].extend(inner);
            }
        }
    }
    for s in &mut sets {
        s.sort_unstable();
        s.dedup();
    }
    sets
}

fn diagnostic(f: &FnIr, pt: &PointsTo, body: BodyId, ob: &Obligation, end: PathEnd) -> Diagnostic {
    let name = memory_name(f, pt, ob.value, ob.root);
    let what = name
        .as_ref()
        .map_or_else(|| "this allocation".to_string(), |n| format!("`{n}`"));
    let root = f.roots.get(ob.root.0 as usize);
    let released_by = root.map(|r| r.released_by.clone());
    // Given up inside a loop of its own body: every iteration loses another block.
    let repeated = f.bodies.get(body.0 as usize).is_some_and(|b| {
        b.blocks
            .get(ob.block.0 as usize)
            .is_some_and(|blk| b.in_own_loop(blk))
    });
    let primary = match (&ob.given_up, repeated) {
        (None, _) => "allocated here".to_string(),
        (Some((api, _)), false) => format!("ownership is given up here with `{api}`"),
        (Some((api, _)), true) => {
            format!("ownership is given up here with `{api}`, on every iteration")
        }
    };
    let exit = match end {
        PathEnd::Exit { block } => f
            .bodies
            .get(body.0 as usize)
            .and_then(|b| b.blocks.get(block.0 as usize))
            .map(|b| (b.term_span, &b.term)),
        PathEnd::Stmt { .. } => None,
    };
    let mut d = match exit {
        Some((span, Terminator::Return { kind, .. })) => {
            let (message, label) = match kind {
                ReturnKind::Early => (
                    format!("{what} is not released when this function returns early"),
                    format!("returns here without releasing {what}"),
                ),
                ReturnKind::Try => (
                    format!("{what} is not released when `?` returns an error"),
                    format!("`?` returns here without releasing {what}"),
                ),
                ReturnKind::End => (
                    format!("{what} is never released"),
                    format!("the function ends here without releasing {what}"),
                ),
            };
            Diagnostic::new(Severity::Warning, message, Label::new(ob.span, primary))
                .with_label(span, label)
        }
        _ => Diagnostic::new(
            Severity::Warning,
            format!(
                "{what} is allocated again in the loop before the previous allocation is released"
            ),
            Label::new(ob.span, format!("{primary}, again on the next iteration")),
        )
        .with_note("the previous iteration's memory is no longer reachable once it is replaced"),
    };
    d = d.with_code(LEAK.code());
    if repeated && ob.given_up.is_some() {
        d = d.with_note("this is inside a loop: each iteration leaks another allocation");
    }
    if body.0 != 0 {
        d = d.with_note("this path is in a closure: it returns from the closure");
    }
    // The function this one releases the root with elsewhere, else the one the root
    // is owed to by name (a foreign handle's destroying partner).
    let free_fn = release_function_used(f, pt, ob.root).or_else(|| {
        match &f.roots.get(ob.root.0 as usize)?.released_by {
            ReleasedBy::Function(name) if is_function_name(name) => Some(name.clone()),
            _ => None,
        }
    });
    let before = if exit.is_some() {
        "before this exit"
    } else {
        "before it is allocated again"
    };
    // Held by a value built so that its `Drop` frees nothing (`owned: false`).
    if let Some(u) = f.unowned_builds.iter().find(|u| u.root == ob.root) {
        let (ty, flag, value) = (&u.ty, &u.flag, u.flag_value);
        return d
            .with_label(
                u.span,
                format!("the `{ty}` built here with `{flag}: {value}` holds {what}, and its `Drop` does not release it"),
            )
            .with_note(format!(
                "`{ty}`'s `Drop` releases what it holds only when `{flag}` is {}",
                !value
            ))
            .with_help(format!(
                "build the `{ty}` with `{flag}: {}` when it holds memory this code allocated",
                !value
            ));
    }
    let help = match (&ob.given_up, released_by) {
        (Some((_, LeakKind::IntoRaw)), _) => format!(
            "turn the pointer back into a box with `Box::from_raw` {before}, or return it to the caller"
        ),
        (Some((api, LeakKind::Leak)), _) => format!(
            "`{api}` never frees: return or store the reference, or keep the owner and let it drop"
        ),
        (Some((api, _)), _) if api.ends_with("ManuallyDrop::new") => {
            if f.value(ob.value).ty == TyClass::Vec {
                format!(
                    "rebuild the vector with `Vec::from_raw_parts` {before}, or drop it with `ManuallyDrop::drop`"
                )
            } else {
                format!(
                    "drop it with `ManuallyDrop::drop` {before}, or let it drop instead of wrapping it in `ManuallyDrop`"
                )
            }
        }
        // A field forgotten with the value it is part of.
        (Some(_), _) if f.value(ob.value).name.as_deref().is_some_and(|n| n.contains('.')) => {
            format!(
                "take {what} out before forgetting its owner (`ptr::read` it from a `ManuallyDrop`) and drop it, or let the owner drop"
            )
        }
        (Some(_), _) => {
            "keep the owner and let it drop instead of forgetting it, or return it to the caller"
                .to_string()
        }
        (None, Some(ReleasedBy::Dealloc)) => format!(
            "call `std::alloc::dealloc` on {what} {before}, or hold it in a guard type whose `Drop` deallocates it"
        ),
        // A list of handles (`xs.iter().map(make).collect()`): each element is owed.
        (None, Some(ReleasedBy::Function(_)))
            if f.values.iter().any(|v| {
                v.kind == ValueKind::Root(ob.root) && v.ty == TyClass::Vec
            }) =>
        {
            let func = free_fn.map_or_else(|| "its release".to_string(), |f| format!("`{f}`"));
            format!("call {func} on each handle in {what} {before}")
        }
        (None, _) => match free_fn {
            Some(func) => format!(
                "call `{func}` on {what} {before}, or hold it in a guard type whose `Drop` gives it back"
            ),
            None => format!(
                "release {what} {before}, or hold it in a guard type whose `Drop` releases it"
            ),
        },
    };
    d.with_help(help)
}

/// Whether a root's releasing function is named (not "a modelled release").
fn is_function_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':')
}

/// The function this function itself releases the root with elsewhere, for the help.
fn release_function_used(f: &FnIr, pt: &PointsTo, root: RootId) -> Option<String> {
    f.stmts().find_map(|(_, _, s)| match &s.op {
        Op::Release {
            value,
            how: ReleaseKind::Function(name),
        } if pt.roots(*value).contains(&root) => Some(name.clone()),
        _ => None,
    })
}
