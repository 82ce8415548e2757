//! `double_free`: tensor memory released twice on one path.

crate::declare_lint! {
    /// ### What it does
    /// Reports a release (`dealloc`, `Box::from_raw` followed by a drop, a function
    /// annotated `#[tensor_lint::free(ARG)]`, a pool return) of memory that is already
    /// released on that path, also when the second release goes through an alias: a
    /// copied pointer, a second handle built from the same pointer. The first release
    /// is shown beside it.
    ///
    /// ### Why is this bad
    /// Releasing twice corrupts the allocator or the pool: the same block is handed to
    /// two later owners, which then overwrite each other's data. The crash, if any,
    /// comes long after and far away.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let scratch = pool.checkout(n);
    /// if frame.is_empty() {
    ///     pool.give_back(scratch);
    /// }
    /// pool.give_back(scratch); // released again when the frame is empty
    /// ```
    /// Both releases must reach the same allocation on every path (a `let mut p`
    /// reassigned from two allocations is not reported), and a path that re-allocates
    /// in between (a loop that allocates and releases once per iteration) is not a
    /// second release. Dropping the box that `Box::from_raw` rebuilt is its one release;
    /// pointers read out of a block (`Box::from_raw(*child)`) are other blocks, and so are
    /// the elements of a list released one per iteration (`for m in meshes { free(m) }`).
    ///
    /// Two owners of one pointer are reported too, for a type whose `Drop` hands a raw
    /// pointer field (or `self`) to an unsafe call: `#[derive(Clone)]` on that type, and
    /// a new value of it built from a pointer copied out of another (`let Owned(p, _) =
    /// other; Owned(p, ..)`), which leaves `other` whole and dropped. Forgetting the old
    /// owner first, or handing the pointer to a call (which may take a reference for
    /// the new owner), is not reported. Also: a `Clone`
    /// written by hand that builds the clone with such a pointer field copied from the
    /// value cloned (`Self { data: self.data, .. }`), unless it hands the pointer to a
    /// call first (`retain(self.handle)`); an owner rebuilt from a pointer with
    /// `Vec::from_raw_parts`, `String::from_raw_parts`, `Box::from_raw` or
    /// `CString::from_raw` while the owner it was taken from (a `Vec`, a `Box`, a
    /// struct whose `Drop` frees it) is still dropped. Giving the first owner up
    /// (`ManuallyDrop::new`, `mem::forget`, `into_raw_parts`, `into_raw`) is not
    /// reported.
    ///
    /// Released but not reset: a method of a type with its own
    /// `Drop` that releases what a pointer field points to, with the function `Drop`
    /// releases it with (or, for memory of the standard library's owners, `dealloc` or
    /// a `from_raw`), and leaves the field as it was on some path to its return: the
    /// value is still dropped (by the caller after a `&mut self` or `&self` method, at
    /// the end of one taking `self`), and `Drop` releases it again. The field may sit
    /// inside another (`self.head.block`, also through a wrapper's `Deref` such as
    /// `CachePadded`), and an atomic pointer counts as read by `load` (through `&self`)
    /// and by `get_mut` in `Drop`. The pointer may come out of a function of the crate
    /// given the field (`self.data.heap()`) or of a method given `self` that returns
    /// it (`let (ptr, len, cap) = self.triple_mut()`), and the release may be a
    /// function of the crate that hands its pointer parameter to one that frees
    /// (`deallocate(ptr, cap)`). Of the calls to code outside Rust that `Drop` hands
    /// the field, only one after which it does not hand it again is its release
    /// (`flush(self.raw)` before `close(self.raw)` releases nothing). Not reported: a
    /// method that writes a field of `self` after the release (the field reset to
    /// null, or an atomic's `store`/`swap` of it) or hands `self` to a call then, one
    /// that takes the pointer out with `swap`, a release reached only on paths that
    /// set a field `Drop` reads (a `closed` flag, a capacity that says where the
    /// memory is) or the released field itself, one taking `self` that gives it up
    /// (`mem::forget(self)`), a method `Drop` calls itself, and a borrowing method the
    /// crate does not export unless a method the crate can call calls it and then
    /// leaves the field as it was.
    ///
    /// A pointer a foreign accessor lends, made an owner of: a
    /// foreign function named as a getter (`pa_stream_get_context`,
    /// `SDL_GetWindowSurface`) that takes one pointer to an object and returns a
    /// pointer to another lends what the object keeps; handing its result to a
    /// constructor of the crate that builds a struct whose `Drop` releases the pointer
    /// unless a `bool` flag says it is borrowed, with the flag set to release
    /// (`Context { ptr, weak: false }`), makes the value release what it never held.
    /// The `Drop` may hand C the field's pointer itself or, as some bindings write it,
    /// a borrow of a pointer or reference field transmuted into a raw pointer
    /// (`transmute(&self.ptr)`). Only types with such a flag are read (their borrowing
    /// constructor is the fix);
    /// getters that take more than the object (a callback, a key) may make what they
    /// return, and are not read.
    ///
    /// The allocator protocol counts as a release wherever it is declared: a function
    /// named `dealloc` or `deallocate` taking a pointer and then its `Layout`
    /// (`GlobalAlloc::dealloc`, `Allocator::deallocate`, a crate's own allocator trait).
    /// A function that returns the pointer it was given on one path and deallocates it
    /// on another (`realloc`) hands the caller's block over, and frees nothing under
    /// the pointer it returns.
    ///
    /// Memory dropped before it ever held a value is reported too (the compiler makes
    /// the drop an assignment does explicit): an assignment through a
    /// pointer or reference (`*p = v`, `v[i] = x`, `ctx.name = s`) drops the value it
    /// replaces, and into memory fresh from an allocator that leaves it uninitialised
    /// (`alloc`, `Box::new_uninit`, the spare capacity of `Vec::with_capacity` after
    /// `set_len`) that drop frees whatever garbage pointers the memory holds. It is
    /// reported when nothing may have written the memory on any path from the
    /// allocation: a `ptr::write`, a `push`, a call the memory is handed to. An
    /// assignment that is the first store on only some paths, a type with nothing to
    /// drop (`f32`), and locals made with `mem::uninitialized` are not reported. A
    /// closure starts with what is not initialised where it runs: an assignment in a
    /// task spawned over chunks of the buffer (`scope.spawn(move || *slot = v)`, a
    /// thread pool's `execute`) is followed into the task, since a call given a
    /// closure can only run it.
    /// So is an assignment into the slot just past a container's length, which the
    /// straight path after it counts by growing the length (`*self.end() = x;
    /// self.set_len(self.len + 1)`, the same with a `Vec`'s spare capacity).
    ///
    /// Values dropped twice by a panic are reported too (the compiler makes the
    /// unwinding explicit): between a bitwise copy of a value that the memory
    /// still holds (`ptr::read`, `ptr::copy` within one owner, elements dropped in
    /// place that the owner still counts) and the write, `forget` or length change
    /// that leaves one owner, a call that may panic unwinds through both. Calls that
    /// may panic are those that run the caller's code (a closure or trait method on a
    /// type parameter or trait object, a library function given the caller's closure
    /// or iterator), checked indexes, `unwrap`, `expect` and `panic!`. Not reported: a
    /// call whose unwinding runs a guard's `Drop` (a type outside the standard library
    /// with a `Drop` of its own, which may write the value back or abort), an `unsafe
    /// fn` (whose caller vouches that what it supplies does not panic), a length set
    /// before the values leave, memory in `ManuallyDrop` or `MaybeUninit` (but for the
    /// slots a type with a `Drop` of its own counts, in its methods), values with
    /// nothing to drop, a helper that copies or drops and leaves the count to its
    /// caller, and calls of the crate's own functions (which may guard what they run).
    /// A placeholder made by `mem::uninitialized` or `mem::zeroed` of a type with
    /// something to drop, swapped into a place with `mem::replace`, is reported the same
    /// way until the place is written again: unwinding drops its owner, and the
    /// placeholder's bytes with it.
    ///
    /// A slot counted before it is written: a method taking
    /// `&mut self` updates a field of the container that its `Drop` reads to drop
    /// values in place (`self.ids.insert(id)`, `self.live[id] = true`, `self.len +=
    /// 1`), and then stores with `ptr::write` the result of code the caller supplies (a
    /// closure or a trait method on a type parameter: `ptr::write(slot, f())`,
    /// `ptr::write(slot, value.clone())`). If that code panics, `Drop` drops the slot
    /// never written. The count may also be advanced by a method of the type that
    /// hands the counted slot back (`let (len, at) = self.push_run(n)?;`, where
    /// `push_run` does `self.top += n`), when the value is written into what it
    /// returned. Not reported: a count updated in any other function the method
    /// calls, a value computed before the count is updated, and a slot that keeps
    /// its own count of written values (set before the caller's code runs, advanced
    /// after each write, through what the method returned). The converse as well:
    /// a method that drops counted values through a method of the type (`self.
    /// drop_range(len..self.size)`) and updates the count only after (`self.size =
    /// len`): a panic in one value's `Drop` leaves the count covering values already
    /// dropped, and the container's `Drop` drops them again. Not reported inside the
    /// type's own `Drop`, which a panic does not run again.
    ///
    /// A value read out of a node that still owns it:
    /// `ptr::read` of a field of a struct of the crate reached through a pointer or a
    /// reference (`ptr::read(&(*node).value)`, or a `ref` binding into the node), when
    /// the crate destroys values of that struct with their fields dropped
    /// (`Box::from_raw`, `drop_in_place`, crossbeam-epoch's `into_owned` or
    /// `defer_destroy`, deferred or not). The reader and the node both own the value,
    /// and destroying the node drops it again. Not reported: a field with nothing to
    /// drop (a `ManuallyDrop` or `MaybeUninit` one), a function that writes through
    /// the node's pointer, forgets or writes a value in place (`mem::forget`,
    /// `ptr::write`, `ptr::copy`, `mem::swap`) or frees memory without dropping it
    /// (`dealloc`), and nodes the crate never destroys by dropping them. Deferred
    /// releases are not followed further here: a node another pointer still reaches (a
    /// queue's `tail`) handed to `defer_destroy` is `use_after_free`'s; a release
    /// handed to another thread by a state change (`swap(DISCONNECTED)`) and uses after
    /// `defer_destroy` under the same guard (which keeps the memory) are not reported.
    ///
    /// A type whose `Drop` releases only under a `bool` field (`if !self.weak { .. }`,
    /// see `leak`) is a second owner only when the literal sets the flag so that it
    /// releases: `TensorRef { raw: owner.raw, weak: true }` is quiet, `weak: false`
    /// is reported. Memory lent by a C getter wrapped with the flag on is reported as
    /// above.
    ///
    /// Use instead: release once on each path.
    /// ```rust,ignore
    /// let scratch = pool.checkout(n);
    /// if !frame.is_empty() {
    ///     process(scratch, frame);
    /// }
    /// pool.give_back(scratch);
    /// ```
    /// count no slot while its values are out, so that a panic leaks them instead:
    /// ```rust,ignore
    /// let len = frame.len();
    /// frame.set_len(0);
    /// for i in 0..len {
    ///     let p = frame.as_mut_ptr().add(i);
    ///     p.write(step(p.read()));
    /// }
    /// frame.set_len(len);
    /// ```
    /// and store the first value without dropping what was there:
    /// ```rust,ignore
    /// let names = alloc(Layout::array::<String>(n).unwrap()) as *mut String;
    /// for i in 0..n {
    ///     names.add(i).write(String::new());
    /// }
    /// ```
    pub DOUBLE_FREE = "double_free", Deny, Correctness, "tensor memory released twice on one path"
}

mod unwinding;

use tensor_lint_analyzer::dataflow::alloc_state::{PathAnswer, PathEnd, PathSearch, Step};
use tensor_lint_analyzer::dataflow::PointsTo;
use std::collections::BTreeMap;

use tensor_lint_analyzer::ir::{
    Body, BlockId, BodyId, CountedBeforeWritten, EscapeKind, FnIr, LentPointerOwned, Op,
    OwnerCopy, ReadOutOfNode,
    ReleaseKind, RootId,
    RootOrigin, TyClass, ValueId, ValueKind,
};
use tensor_lint_analyzer::ir::structs::{ReleasedNotReset, StructItem};
use tensor_lint_analyzer::source::Span;

use crate::context::{LintContext, LintFinding};
use crate::diagnostic::{Diagnostic, Label, Severity};

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

/// One release statement of a body.
#[derive(Clone, Debug)]
pub(crate) struct ReleaseSite {
    pub block: BlockId,
    pub index: usize,
    pub value: ValueId,
    /// The one root the released value reaches.
    pub root: RootId,
    pub how: ReleaseKind,
    pub span: Span,
    /// For `realloc`: the root of the new block. Where it is null, the move failed
    /// and the old block was never released.
    pub realloc_into: Option<RootId>,
}

impl ReleaseSite {
    /// Whether `op` shows that this release did not happen on the path: the memory
    /// is null there, or the `realloc` that released it failed.
    pub(crate) fn undone_by(&self, op: &Op, pt: &PointsTo) -> bool {
        let Op::AssumeNull { value } = op else {
            return false;
        };
        let roots = pt.roots(*value);
        roots.contains(&self.root) || self.realloc_into.is_some_and(|n| roots.contains(&n))
    }
}

/// The releases of `body` whose value reaches exactly one root that is not a static.
pub(crate) fn release_sites(f: &FnIr, pt: &PointsTo, body: BodyId) -> Vec<ReleaseSite> {
    let mut out = Vec::new();
    let Some(b) = f.bodies.get(body.0 as usize) else {
        return out;
    };
    for (k, block) in b.blocks.iter().enumerate() {
        for (i, stmt) in block.stmts.iter().enumerate() {
            let Op::Release { value, how } = &stmt.op else {
                continue;
            };
            let [root] = pt.roots(*value) else {
                continue;
            };
            if f.roots.get(root.0 as usize).map(|r| &r.origin) == Some(&RootOrigin::Static) {
                continue;
            }
            // `realloc` lowers to the release of the old block and, at the same
            // place, the allocation of the new one.
            let realloc_into = match block.stmts.get(i + 1) {
                Some(next) if next.span == stmt.span && *how == ReleaseKind::Dealloc => {
                    match next.op {
                        Op::Alloc { root, .. } => Some(root),
                        _ => None,
                    }
                }
                _ => None,
            };
            out.push(ReleaseSite {
                block: BlockId(k as u32),
                index: i,
                value: *value,
                root: *root,
                how: how.clone(),
                span: stmt.span,
                realloc_into,
            });
        }
    }
    out
}

/// Drops the compiler inserts or checks: two of them cannot release one owner twice
/// in code that compiles, so such a pair is the analyzer's imprecision, not a bug.
pub(crate) fn is_raii(how: &ReleaseKind) -> bool {
    matches!(
        how,
        ReleaseKind::Drop | ReleaseKind::ScopeEnd | ReleaseKind::ClosureEnd
    )
}

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    // Where a method taking `self` is found releasing a field `Drop` releases again:
    // the drop of `self` there is that finding, not a second one.
    let said: Vec<Span> = cx
        .ir
        .structs
        .iter()
        .flat_map(|s| &s.released_not_reset)
        .filter(|m| m.by_value)
        .filter_map(|m| m.dropped_at)
        .collect();
    let mut found = Vec::new();
    check_all(cx, &mut found);
    found.retain(|f| !said.contains(&f.diagnostic.primary.span));
    out.extend(found);
}

fn check_all(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    for s in &cx.ir.structs {
        for method in &s.released_not_reset {
            out.push(LintFinding {
                lint: &DOUBLE_FREE,
                proven: true,
                diagnostic: released_not_reset_diagnostic(s, method),
            });
        }
        if let Some(d) = clone_diagnostic(s) {
            out.push(LintFinding {
                lint: &DOUBLE_FREE,
                proven: true,
                diagnostic: d,
            });
        }
    }
    for slot in &cx.ir.counted_slots {
        out.push(LintFinding {
            lint: &DOUBLE_FREE,
            proven: true,
            diagnostic: counted_slot_diagnostic(slot),
        });
    }
    for read in &cx.ir.node_reads {
        out.push(LintFinding {
            lint: &DOUBLE_FREE,
            proven: true,
            diagnostic: read_out_of_node_diagnostic(read),
        });
    }
    for lent in &cx.ir.lent_owned {
        out.push(LintFinding {
            lint: &DOUBLE_FREE,
            proven: true,
            diagnostic: lent_pointer_owned_diagnostic(lent),
        });
    }
    // A truncated function lacks some of its ops: a missing release or allocation
    // would become a false finding.
    for f in cx.functions().filter(|f| !f.truncated) {
        let Some(facts) = cx.ir.facts(f.id) else {
            continue;
        };
        uninit_drops(cx, f, &facts.points_to, out);
        for b in 0..f.bodies.len() {
            check_body(f, &facts.points_to, BodyId(b as u32), out);
            stored_past_the_length(cx, f, &facts.points_to, BodyId(b as u32), out);
            unwinding::unwinding_double_drops(cx, f, &facts.points_to, BodyId(b as u32), out);
        }
        for copy in &f.owner_copies {
            if let Some(d) = owner_copy_diagnostic(f, copy) {
                out.push(LintFinding {
                    lint: &DOUBLE_FREE,
                    proven: true,
                    diagnostic: d,
                });
            }
        }
    }
}

/// What becomes of an owner of raw memory in its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OwnerFate {
    /// Dropped at the end of its scope, here.
    Dropped(Span),
    /// Returned: the caller drops it.
    Returned,
    /// Borrowed from the caller, whose owner drops it.
    Borrowed,
}

/// The fate of the owner of `root` in the function's own body; `None` when it is
/// moved somewhere, forgotten or given up on some path, or never dropped.
fn owner_fate(f: &FnIr, root: RootId) -> Option<OwnerFate> {
    let mut dropped = None;
    let mut returned = false;
    for (b, _, stmt) in f.stmts() {
        match &stmt.op {
            Op::Release { value, how } if f.value(*value).kind.root() == Some(root) => {
                if is_raii(how) && b == BodyId(0) {
                    dropped = dropped.or(Some(stmt.span));
                } else {
                    return None;
                }
            }
            Op::Escape { value, how } if f.value(*value).kind.root() == Some(root) => match how {
                EscapeKind::Returned if b == BodyId(0) => returned = true,
                _ => return None,
            },
            _ => {}
        }
    }
    match (dropped, returned) {
        (Some(span), _) => Some(OwnerFate::Dropped(span)),
        (None, true) => Some(OwnerFate::Returned),
        (None, false) => None,
    }
}

/// Two owners of one raw pointer that both release it: a new owner built from a pointer
/// copied out of one that is still dropped, here or by the caller. Reported where this
/// function drops one of them.
fn owner_copy_diagnostic(f: &FnIr, copy: &OwnerCopy) -> Option<Diagnostic> {
    let copy_fate = owner_fate(f, f.value(copy.copy).kind.root()?)?;
    let source_fate = if copy.source_borrowed {
        OwnerFate::Borrowed
    } else {
        owner_fate(f, f.value(copy.source).kind.root()?)?
    };

    // A pointer handed to a call (`incref(p)`) may have been given a reference of its
    // own.
    let passed = f.stmts().any(|(_, _, s)| match &s.op {
        Op::Call { args, .. } => args.contains(&copy.part),
        _ => false,
    });
    if passed {
        return None;
    }
    let ty = &copy.ty;
    let source = f
        .value(copy.source)
        .name
        .clone()
        .unwrap_or_else(|| "self".into());
    let copy_name = match &f.value(copy.copy).name {
        Some(n) => format!("`{n}`"),
        None => format!("the new `{ty}`"),
    };
    let (primary, other) = match (copy_fate, source_fate) {
        (OwnerFate::Dropped(_), OwnerFate::Dropped(at)) => (
            Label::new(
                at,
                format!("`{source}` is dropped here and releases the memory {copy_name} released just before"),
            ),
            None,
        ),
        (OwnerFate::Dropped(at), other) => (
            Label::new(
                at,
                format!("{copy_name} is dropped here and releases the memory `{source}` also holds"),
            ),
            Some(match other {
                OwnerFate::Borrowed => format!(
                    "`{source}` is borrowed: its owner releases the same memory when it is dropped"
                ),
                _ => format!("the returned `{source}` releases the same memory when it is dropped"),
            }),
        ),
        (OwnerFate::Returned, OwnerFate::Dropped(at)) => (
            Label::new(
                at,
                format!("`{source}` is dropped here and releases the memory {copy_name} still holds"),
            ),
            Some(format!(
                "{copy_name} is returned and releases the same memory when it is dropped"
            )),
        ),
        _ => return None,
    };
    let mut d = Diagnostic::new(
        Severity::Error,
        format!("`{source}` and the `{ty}` built from its pointer both release it"),
        primary,
    )
    .with_code(DOUBLE_FREE.code())
    .with_label(
        copy.part_span,
        format!("the pointer is copied out of `{source}` here, which leaves `{source}` whole"),
    )
    .with_label(copy.span, "a second owner of the pointer is built here");
    if let Some(note) = other {
        d = d.with_note(note);
    }
    d = d.with_note(format!(
        "`{ty}` releases what its raw pointer points to in its `Drop`, once per value"
    ));
    Some(d.with_help(format!(
        "take the pointer out with `std::mem::forget({source})` (or through `ManuallyDrop`) so that only the new owner releases it"
    )))
}

/// A method that releases what field `field` points to and leaves the field as it was:
/// the type's `Drop` releases it again.
fn released_not_reset_diagnostic(s: &StructItem, m: &ReleasedNotReset) -> Diagnostic {
    let (ty, field, method) = (&s.name, &m.field, &m.method);
    let mut d = Diagnostic::new(
        Severity::Error,
        format!("`{ty}::{method}` releases `self.{field}` and leaves it to `Drop`, which releases it again"),
        Label::new(m.release, format!("`self.{field}` is released here and keeps its value")),
    )
    .with_code(DOUBLE_FREE.code())
    .with_label(m.drop_release, format!("`Drop` releases `self.{field}` again"));
    d = match (m.by_value, m.dropped_at) {
        (true, Some(at)) => d.with_label(at, format!("`self` is dropped here, at the end of `{method}`")),
        _ => d.with_note(format!(
            "after `{method}`, dropping the `{ty}` releases the same memory a second time"
        )),
    };
    let help = if m.by_value {
        "give `self` up after the release (`std::mem::forget(self)`, or `ManuallyDrop`), so that `Drop` does not run".to_string()
    } else if m.atomic {
        format!(
            "take the pointer out of the field before releasing it: `self.{field}.swap(ptr::null_mut(), ..)` instead of `load`, so that `Drop` finds null"
        )
    } else {
        format!(
            "set `self.{field}` to null (or a flag `Drop` tests) after releasing it, or hold it in an `Option` and release what `take()` returns"
        )
    };
    d.with_help(help)
}

/// A value read out of a node whose destruction drops it again.
/// A pointer a foreign getter lends, made an owner of by a constructor whose flag says
/// the value releases it.
fn lent_pointer_owned_diagnostic(l: &LentPointerOwned) -> Diagnostic {
    let (ctor, getter, owner, release) = (&l.constructor, &l.getter, &l.owner, &l.release);
    let flag = format!("{}: {}", l.flag, l.flag_value);
    let help = match &l.borrowing {
        Some(borrowing) => format!(
            "wrap the lent pointer with `{borrowing}`, which builds a `{owner}` that does not release it"
        ),
        None => format!(
            "build the `{owner}` with the flag the other way for a lent pointer, or take a reference of its own first"
        ),
    };
    Diagnostic::new(
        Severity::Error,
        format!("`{ctor}` makes an owner of a pointer `{getter}` only lends"),
        Label::new(l.at, format!("a `{owner}` with `{flag}` is built here: dropping it releases the pointer")),
    )
    .with_code(DOUBLE_FREE.code())
    .with_label(l.getter_at, format!("`{getter}` lends this pointer: what it was read from keeps it"))
    .with_label(l.drop_release, format!("`Drop for {owner}` releases it with `{release}`"))
    .with_note(format!(
        "the pointer is released when the `{owner}` is dropped, and again by the owner it was lent by"
    ))
    .with_help(help)
}

/// A slot counted before it is written, with the caller's code in between.
fn counted_slot_diagnostic(c: &CountedBeforeWritten) -> Diagnostic {
    let (count, owner) = (&c.count, &c.owner);
    let Some(write_at) = c.write_at else {
        return Diagnostic::new(
            Severity::Error,
            format!("a panic here leaves `self.{count}` counting values already dropped"),
            Label::new(c.at, "values are dropped here while still counted; a `Drop` of theirs may panic"),
        )
        .with_code(DOUBLE_FREE.code())
        .with_label(c.count_at, format!("`self.{count}` stops counting them only here, after"))
        .with_note(format!(
            "on unwinding, `Drop for {owner}` drops every value `{count}` counts, these again"
        ))
        .with_help(format!("update `self.{count}` first, then drop the values it no longer counts"));
    };
    Diagnostic::new(
        Severity::Error,
        format!("a panic here leaves `self.{count}` counting a slot that was never written"),
        Label::new(c.at, "the caller's code runs here, and may panic"),
    )
    .with_code(DOUBLE_FREE.code())
    .with_label(
        c.count_at,
        match &c.counted_by {
            Some(method) => format!("`{method}` counts the slot in `self.{count}` here, and hands it back"),
            None => format!("the slot is counted in `self.{count}` here"),
        },
    )
    .with_label(write_at, "the slot is written only here, after")
    .with_note(format!(
        "on unwinding, `Drop for {owner}` drops every slot `{count}` counts, this one uninitialised"
    ))
    .with_help(match &c.counted_by {
        Some(_) => format!(
            "compute the values before `self.{count}` counts the slot, or give the slot a count of its own that is zero before the caller's code runs and grows after each write"
        ),
        None => format!(
            "compute the value first and count the slot once it is written (`let v = f(); ptr::write(slot, v);`, then update `self.{count}`)"
        ),
    })
}

fn read_out_of_node_diagnostic(r: &ReadOutOfNode) -> Diagnostic {
    let (node, field) = (&r.node, &r.field);
    let destroyed = if r.deferred {
        format!("a `{node}` is destroyed here, later, and drops its `{field}` again")
    } else {
        format!("a `{node}` is destroyed here, and drops its `{field}` again")
    };
    Diagnostic::new(
        Severity::Error,
        format!("this reads the `{field}` out of a `{node}` that still owns it"),
        Label::new(r.at, format!("a bitwise copy of the `{field}`; the `{node}` keeps its own")),
    )
    .with_code(DOUBLE_FREE.code())
    .with_label(r.destroyed, destroyed)
    .with_note("the copy and the node each drop the value: what it owns is freed twice")
    .with_help(format!(
        "hold the field as `ManuallyDrop` (or `MaybeUninit`) so that destroying a `{node}` does not drop it, or take the value out with `mem::replace`"
    ))
}

/// A type whose `Drop` releases what its raw pointer fields point to, with a `Clone`
/// that copies those pointers into the clone (`#[derive(Clone)]`, or one written by
/// hand that builds `Self { ptr: self.ptr, .. }`): the original and every clone
/// release them.
fn clone_diagnostic(s: &StructItem) -> Option<Diagnostic> {
    if !s.raw_owner {
        return None;
    }
    let ty = &s.name;
    let (at, label, help) = match (s.derives_clone, s.clone_copies_pointer) {
        (Some(at), _) => (
            at,
            "this copies the raw pointers into a second owner",
            format!(
                "remove `Clone` from the derive, or implement `Clone` for `{ty}` so that the copy owns memory (or a reference count) of its own"
            ),
        ),
        (None, Some(at)) => (
            at,
            "the clone built here holds the raw pointer of the value cloned",
            "give the clone memory of its own (allocate, then copy what the pointer reaches), or count the references to the shared memory".to_string(),
        ),
        (None, None) => return None,
    };
    Some(
        Diagnostic::new(
            Severity::Error,
            format!("clones of `{ty}` release the memory of the value they were cloned from"),
            Label::new(at, label),
        )
        .with_code(DOUBLE_FREE.code())
        .with_label(s.span, format!("`{ty}` releases what its raw pointers point to when dropped"))
        .with_note("the original and every clone are each dropped, so the memory is released once per copy")
        .with_help(help),
    )
}

fn check_body(f: &FnIr, pt: &PointsTo, body: BodyId, out: &mut Vec<LintFinding>) {
    let sites = release_sites(f, pt, body);
    let mut reported: Vec<(BlockId, usize)> = Vec::new();
    let paths = PathSearch::new(f, body);
    // The owners `from_raw` rebuilt in the function, found once when first asked.
    let rebuilt = std::cell::OnceCell::new();
    for first in &sites {
        let r = first.root;
        let answer = paths.run(
            first.block,
            first.index + 1,
            |block, index, stmt| match &stmt.op {
                // Allocated again, or loaded again: another block from here on.
                Op::Alloc { root, .. } | Op::Load { root, .. } if *root == r => Step::Prune,
                op if first.undone_by(op, pt) => Step::Prune,
                Op::Release { value, how } if pt.roots(*value) == [r] => {
                    let second_is_owner_drop = matches!(first.how, ReleaseKind::FromRaw(_))
                        && is_raii(how)
                        && rebuilt.get_or_init(|| rebuilt_owners(f)).contains(value);
                    if (is_raii(&first.how) && is_raii(how)) || second_is_owner_drop {
                        Step::Continue
                    } else if reported.contains(&(block, index)) {
                        Step::Prune
                    } else {
                        Step::Found
                    }
                }
                _ => Step::Continue,
            },
            |_, _| false,
        );
        let PathAnswer::Found(PathEnd::Stmt { block, index }, _) = answer else {
            continue;
        };
        let Some(second) = sites.iter().find(|s| s.block == block && s.index == index) else {
            continue;
        };
        reported.push((block, index));
        out.push(LintFinding {
            lint: &DOUBLE_FREE,
            proven: true,
            diagnostic: diagnostic(f, pt, first, second),
        });
    }
}

/// The owners `Box::from_raw` (or `Vec::from_raw_parts`) rebuilt, and the moves of
/// them: the drop of one is the release its `from_raw` stands for (and two `from_raw`
/// of one pointer are reported as such). The owner the pointer was taken from is not: if
/// it is still dropped, two owners release the memory.
fn rebuilt_owners(f: &FnIr) -> Vec<ValueId> {
    let mut rebuilt: Vec<ValueId> = Vec::new();
    let mut taken_back: Option<(ValueId, Span)> = None;
    for (_, _, stmt) in f.stmts() {
        match &stmt.op {
            Op::Release {
                value,
                how: ReleaseKind::FromRaw(_),
            } => taken_back = Some((*value, stmt.span)),
            // The owner is a view of the pointer, made where it is taken back.
            Op::View { dst, src, .. } if taken_back == Some((*src, stmt.span)) => {
                rebuilt.push(*dst);
            }
            _ => {}
        }
    }
    // Moves of the rebuilt owner, to a fixed point.
    let mut grew = !rebuilt.is_empty();
    while grew {
        grew = false;
        for (_, _, stmt) in f.stmts() {
            let (Op::Assign { dst, src } | Op::View { dst, src, .. }) = &stmt.op else {
                continue;
            };
            if rebuilt.contains(src) && !rebuilt.contains(dst) {
                rebuilt.push(*dst);
                grew = true;
            }
        }
    }
    rebuilt
}

pub(crate) fn release_text(how: &ReleaseKind) -> String {
    match how {
        ReleaseKind::Drop => "dropped".into(),
        ReleaseKind::Dealloc => "deallocated".into(),
        ReleaseKind::FromRaw(owner) if owner == "Box" => "taken back by a box that frees it".into(),
        ReleaseKind::FromRaw(owner) => format!("taken back by a `{owner}` that frees it"),
        ReleaseKind::Function(name) => format!("given back with `{name}`"),
        ReleaseKind::ScopeEnd => "dropped at the end of its scope".into(),
        ReleaseKind::ClosureEnd => {
            "moved into the closure, which drops it when it returns".into()
        }
    }
}

fn diagnostic(f: &FnIr, pt: &PointsTo, first: &ReleaseSite, second: &ReleaseSite) -> Diagnostic {
    let name = crate::describe::memory_name(f, pt, second.value, second.root);
    let what = name
        .as_ref()
        .map_or_else(|| "this memory".to_string(), |n| format!("`{n}`"));
    let same_site = first.block == second.block && first.index == second.index;
    let mut d = if same_site {
        Diagnostic::new(
            Severity::Error,
            format!("{what} is released again on the next iteration of the loop"),
            Label::new(second.span, "released here on every iteration"),
        )
        .with_note("nothing allocates it again between two iterations")
    } else if let (ReleaseKind::FromRaw(owner), true) = (&first.how, is_raii(&second.how)) {
        // The owner the pointer was taken from is still dropped.
        Diagnostic::new(
            Severity::Error,
            format!("{what} has two owners that both free it"),
            Label::new(
                second.span,
                format!("{what} is dropped here and frees the memory the `{owner}` also frees"),
            ),
        )
        .with_label(
            first.span,
            format!("a second owner is built here: a `{owner}` that frees the memory when it is dropped"),
        )
    } else {
        Diagnostic::new(
            Severity::Error,
            format!("{what} is released twice"),
            Label::new(
                second.span,
                if second.how == ReleaseKind::ScopeEnd {
                    format!("{what} is dropped here, at the end of its scope, and frees it again")
                } else {
                    format!("{what} is released again here")
                },
            ),
        )
        .with_label(
            first.span,
            format!("first {} here", release_text(&first.how)),
        )
    };
    d = d.with_code(DOUBLE_FREE.code());
    let first_name = crate::describe::memory_name(f, pt, first.value, first.root);
    if let (Some(a), Some(b)) = (&first_name, &name) {
        if a != b {
            d = d.with_note(format!("`{b}` and `{a}` point to the same allocation"));
        }
    }
    d.with_help(help(f, &what, first, second))
}

/// A fix that fits what is released: a pointer can be nulled, an owner cannot.
fn help(f: &FnIr, what: &str, first: &ReleaseSite, second: &ReleaseSite) -> String {
    if let (ReleaseKind::FromRaw(owner), true) = (&first.how, is_raii(&second.how)) {
        return format!(
            "give up {what} before the `{owner}` takes its memory (`std::mem::ManuallyDrop::new`, `std::mem::forget`), so that one owner frees it"
        );
    }
    if second.how == ReleaseKind::ScopeEnd {
        return format!(
            "let the owner's drop release {what}, or wrap the owner in `std::mem::ManuallyDrop` when {what} is released by hand"
        );
    }
    if first.realloc_into.is_some() {
        return format!(
            "after `realloc` succeeds only its result may be released; release {what} only where `realloc` returned null"
        );
    }
    let pointer = [first, second]
        .iter()
        .any(|site| {
            let value = f.value(site.value);
            matches!(value.kind, ValueKind::RawPtr(_)) || value.ty == TyClass::RawPtr
        });
    if pointer {
        format!(
            "release {what} exactly once on each path; if it must be released early, set the pointer to null and test it before the second release"
        )
    } else {
        format!(
            "release {what} exactly once on each path; if it must be released early, hold it in an `Option` and release what `take()` returns"
        )
    }
}

/// Drops of memory never initialised: an assignment through a pointer (`*p = v`,
/// `v[i] = x`, `ctx.name = s` through `assume_init_mut`) drops the value it replaces,
/// and memory fresh from an allocator that does not initialise it (`alloc`,
/// `Box::new_uninit`, the spare capacity of `Vec::with_capacity`) holds no value: its
/// `Drop` runs on garbage. Reported where, on every path from the allocation, nothing
/// may have written the memory yet: a write that is not such an assignment's own
/// store (`ptr::write`, `MaybeUninit::write`, `push`), a call it is handed to, an
/// in-place or atomic op, or its escape. A loop of assignments is reported at its first
/// round.
///
/// A closure starts with what is not initialised wherever its body is run, called or
/// handed to a call (`pool.scoped(|s| ..)`, `s.execute(move || ..)`): a call given a
/// closure can only run it, so what the closure reaches is its own to write.
fn uninit_drops(cx: &LintContext<'_>, f: &FnIr, pt: &PointsTo, out: &mut Vec<LintFinding>) {
    use std::collections::BTreeSet;
    let uninit = |r: &RootId| f.roots.get(r.0 as usize).is_some_and(|root| root.uninit);
    if !f.roots.iter().any(|r| r.uninit) {
        return;
    }
    // The entry state of each closure body: the intersection of its parent's states
    // where the closure is run.
    let mut entries: Vec<Option<BTreeSet<RootId>>> = vec![None; f.bodies.len()];
    for (k, b) in f.bodies.iter().enumerate() {
        let start = match b.kind {
            tensor_lint_analyzer::ir::BodyKind::Function => BTreeSet::new(),
            tensor_lint_analyzer::ir::BodyKind::Closure { .. } => {
                entries[k].clone().unwrap_or_default()
            }
        };
        let drops: Vec<(RootId, Span)> = b
            .blocks
            .iter()
            .flat_map(|block| &block.stmts)
            .filter_map(|st| match &st.op {
                Op::DropStored { value, .. } => match pt.roots(*value) {
                    [root] if uninit(root) => Some((*root, st.span)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let runs_closures = b.blocks.iter().flat_map(|block| &block.stmts).any(|st| {
            !closures_run(f, &st.op).is_empty()
        });
        if drops.is_empty() && !runs_closures {
            continue;
        }
        // A block's exit from its entry; `at_stmt` sees the state before each statement.
        let transfer = |k: usize,
                        mut state: BTreeSet<RootId>,
                        at_stmt: &mut dyn FnMut(usize, &tensor_lint_analyzer::ir::Stmt, &BTreeSet<RootId>)| {
            for (i, st) in b.blocks[k].stmts.iter().enumerate() {
                at_stmt(i, st, &state);
                let initialised: Vec<ValueId> = match &st.op {
                    Op::Alloc { root, .. } => {
                        if uninit(root) {
                            state.insert(*root);
                        }
                        Vec::new()
                    }
                    // The store of an assignment whose drop is reported: not a first value.
                    Op::Write { value, .. }
                        if drops.iter().any(|(r, span)| {
                            *span == st.span && pt.roots(*value).contains(r)
                        }) =>
                    {
                        Vec::new()
                    }
                    Op::Write { value, .. }
                    | Op::Store { value, .. }
                    | Op::Escape { value, .. }
                    | Op::Release { value, .. }
                    | Op::Atomic { value, .. } => vec![*value],
                    Op::InPlace { dst, srcs, .. } => {
                        std::iter::once(*dst).chain(srcs.iter().copied()).collect()
                    }
                    Op::Call { args, .. } => args.clone(),
                    _ => Vec::new(),
                };
                for v in initialised {
                    for r in pt.roots(v) {
                        state.remove(r);
                    }
                }
            }
            state
        };
        // Must-analysis: a root counts as not initialised at a block only when it is
        // on every path into it.
        let entry = forward_states(
            b,
            start,
            |k, state| transfer(k, state, &mut |_, _, _| {}),
            |old, exit| old.intersection(exit).copied().collect(),
        );
        let mut found = Vec::new();
        for (k, state) in entry.iter().enumerate() {
            let Some(state) = state.clone() else {
                continue;
            };
            transfer(k, state, &mut |i, st, state| {
                if let Op::DropStored { value, .. } = &st.op {
                    if let [root] = pt.roots(*value) {
                        if state.contains(root) {
                            found.push((k, i));
                        }
                    }
                }
                for c in closures_run(f, &st.op) {
                    if let Some(slot) = entries.get_mut(c.0 as usize) {
                        *slot = Some(match slot.take() {
                            None => state.clone(),
                            Some(old) => old.intersection(state).copied().collect(),
                        });
                    }
                }
            });
        }
        let mut reported: BTreeSet<RootId> = BTreeSet::new();
        for (k, i) in found {
            let st = &b.blocks[k].stmts[i];
            let Op::DropStored { value, .. } = &st.op else {
                continue;
            };
            let [root] = pt.roots(*value) else { continue };
            // One finding per block of memory: its first such assignment.
            if !reported.insert(*root) {
                continue;
            }
            out.push(LintFinding {
                lint: &DOUBLE_FREE,
                proven: true,
                diagnostic: uninit_drop_diagnostic(cx, f, pt, *value, *root, st.span),
            });
        }
    }
}

/// The closure bodies an op runs: one it calls, one given to a call as an argument,
/// the tasks of a parallel region or a spawn.
fn closures_run(f: &FnIr, op: &Op) -> Vec<BodyId> {
    match op {
        Op::Call { callee, args, .. } => {
            let mut out: Vec<BodyId> = args
                .iter()
                .filter_map(|a| match f.values.get(a.0 as usize).map(|v| &v.kind) {
                    Some(ValueKind::Closure(body)) => Some(*body),
                    _ => None,
                })
                .collect();
            if let tensor_lint_analyzer::ir::Callee::Closure(body) = callee {
                out.push(*body);
            }
            out
        }
        Op::Parallel(region) => region.tasks.iter().map(|t| t.body).collect(),
        Op::Spawn { task, .. } => vec![task.body],
        _ => Vec::new(),
    }
}

/// A forward dataflow over the blocks of `b` to its fixed point: the state at each
/// block's entry (`None` where no path reaches it), from `start` at the entry block.
/// `transfer` gives a block's exit from its entry; `join` merges a predecessor's exit
/// into what a successor's entry holds already.
pub(crate) fn forward_states<S: Clone + PartialEq>(
    b: &tensor_lint_analyzer::ir::Body,
    start: S,
    transfer: impl Fn(usize, S) -> S,
    join: impl Fn(&S, &S) -> S,
) -> Vec<Option<S>> {
    let n = b.blocks.len();
    let mut entry: Vec<Option<S>> = vec![None; n];
    if n > 0 {
        entry[0] = Some(start);
    }
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 4 * n + 8 {
        changed = false;
        rounds += 1;
        for k in 0..n {
            let Some(state) = entry[k].clone() else {
                continue;
            };
            let exit = transfer(k, state);
            for &succ in b.blocks[k].term.successors() {
                let s = succ.0 as usize;
                let merged = match &entry[s] {
                    None => exit.clone(),
                    Some(old) => join(old, &exit),
                };
                if entry[s].as_ref() != Some(&merged) {
                    entry[s] = Some(merged);
                    changed = true;
                }
            }
        }
    }
    entry
}

/// Who owns the memory a body's values reach: the roots each value may reach, and for a
/// parameter the memory it stands for (`self` and the buffer `self.as_mut_ptr()`
/// points into).
pub(crate) struct Owners<'a> {
    pt: &'a PointsTo,
    params: BTreeMap<ValueId, Vec<RootId>>,
}

impl<'a> Owners<'a> {
    pub(crate) fn new(f: &FnIr, b: &Body, pt: &'a PointsTo) -> Owners<'a> {
        let params = b
            .params
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let roots = f
                    .roots
                    .iter()
                    .filter(|r| r.origin == RootOrigin::Param(k))
                    .map(|r| r.id)
                    .collect();
                (p, roots)
            })
            .collect();
        Owners { pt, params }
    }

    /// The roots `v` stands for as an owner.
    pub(crate) fn roots(&self, v: ValueId) -> Vec<RootId> {
        self.pt
            .roots(v)
            .iter()
            .chain(self.params.get(&v).into_iter().flatten())
            .copied()
            .collect()
    }

    /// Whether two values stand for one owner: the same value, or memory of a common
    /// root.
    pub(crate) fn same(&self, a: ValueId, c: ValueId) -> bool {
        let rc = self.roots(c);
        a == c || self.roots(a).iter().any(|r| rc.contains(r))
    }
}

/// An assignment through a pointer into a container's buffer (`*self.end_mut_ptr() =
/// item`) followed, on the straight path after it, by the container's length growing
/// (`self.set_len(self.len + 1)`): the slot was past the length, so it held no value,
/// and the assignment dropped garbage before storing.
fn stored_past_the_length(
    cx: &LintContext<'_>,
    f: &FnIr,
    pt: &PointsTo,
    body: BodyId,
    out: &mut Vec<LintFinding>,
) {
    let Some(b) = f.bodies.get(body.0 as usize) else {
        return;
    };
    let owners = Owners::new(f, b, pt);
    for (k, block) in b.blocks.iter().enumerate() {
        for (i, stmt) in block.stmts.iter().enumerate() {
            let Op::DropStored { value: slot, .. } = &stmt.op else {
                continue;
            };
            if owners.roots(*slot).is_empty() {
                continue;
            }
            let same_owner = |v: ValueId| owners.same(*slot, v);
            // The straight path on: the rest of the block, then blocks with one
            // successor, a few of them.
            let mut grown = None;
            let (mut at, mut from) = (k, i + 1);
            'walk: for _ in 0..8 {
                for st in &b.blocks[at].stmts[from..] {
                    match &st.op {
                        Op::SetLen { value, grows } if same_owner(*value) => {
                            if *grows {
                                grown = Some(st.span);
                            }
                            break 'walk;
                        }
                        Op::Write { value, .. } | Op::Store { value, .. } | Op::DropStored { value, .. }
                            if value != slot && same_owner(*value) =>
                        {
                            break 'walk;
                        }
                        _ => {}
                    }
                }
                let successors: Vec<BlockId> = b.blocks[at].term.successors().to_vec();
                match successors.as_slice() {
                    [next] => (at, from) = (next.0 as usize, 0),
                    _ => break,
                }
            }
            let Some(grown) = grown else {
                continue;
            };
            let place = crate::describe::snippet(cx, stmt.span)
                .map_or_else(|| "the slot".to_string(), |s| format!("`{s}`"));
            out.push(LintFinding {
                lint: &DOUBLE_FREE,
                proven: true,
                diagnostic: Diagnostic::new(
                    Severity::Error,
                    format!("this assignment drops {place}, a slot past the length that holds no value yet"),
                    Label::new(
                        stmt.span,
                        "the slot's old value is dropped here before the new one is stored, but nothing was stored there",
                    ),
                )
                .with_code(DOUBLE_FREE.code())
                .with_label(grown, "the length grows over the slot only here")
                .with_note("dropping memory that holds no value runs `Drop` on garbage: it frees pointers that were never allocated")
                .with_help("store the value with `std::ptr::write` (or `MaybeUninit::write`), which does not drop what was there, then grow the length"),
            });
        }
    }
}

fn uninit_drop_diagnostic(
    cx: &LintContext<'_>,
    f: &FnIr,
    pt: &PointsTo,
    value: ValueId,
    root: RootId,
    span: Span,
) -> Diagnostic {
    // The place as the assignment writes it (`*p.add(i)`, `ctx.name`).
    let name = crate::describe::snippet(cx, span)
        .or_else(|| crate::describe::memory_name(f, pt, value, root));
    let what = name
        .as_ref()
        .map_or_else(|| "memory".to_string(), |n| format!("`{n}`"));
    let r = &f.roots[root.0 as usize];
    let made = r
        .allocated_by
        .as_ref()
        .map_or_else(String::new, |by| format!(" by `{by}`"));
    Diagnostic::new(
        Severity::Error,
        format!("this assignment drops {what}, which was never initialised"),
        Label::new(
            span,
            "the old value is dropped here before the new one is stored, but nothing was stored yet",
        ),
    )
    .with_label(r.span, format!("allocated here{made}, without initialising it"))
    .with_note("dropping memory that holds no value runs `Drop` on garbage: it frees pointers that were never allocated")
    .with_help("store the first value with `std::ptr::write` (or `MaybeUninit::write`), which does not drop what was there")
}
