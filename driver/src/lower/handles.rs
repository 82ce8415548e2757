//! Collections of handles each owed a release. `xs.iter().map(make).collect()`, where
//! `make` returns a handle its caller must release (one a C API's `*_free` takes back),
//! is a new collection whose every element is owed: dropping the collection releases
//! none of them, and `for h in handles { free(h) }` releases them all once the loop is
//! done.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_middle::mir::{self, BasicBlock};
use rustc_middle::ty::{self, Ty};

use tensor_lint_analyzer::ir::{
    BodyId, Op, ReleaseKind, ReleasedBy, RootId, RootOrigin, Stmt, TyClass, ValueId, ValueKind,
};
use tensor_lint_analyzer::source::Span;
use tensor_lint_analyzer::summary::ReturnSummary;

use super::calls::Arg;
use super::{BodyCx, FnLowerer};

#[derive(Default)]
pub(crate) struct Handles {
    /// Iterators whose items are owed handles (`map(make)`), with how each is released.
    owed_items: FxHashMap<ValueId, ReleasedBy>,
    /// The roots of the collections made: their memory is the handles, which dropping
    /// the collection does not release.
    collections: FxHashSet<RootId>,
    /// Iterators over a collection of owed handles, with the collection.
    iters: FxHashMap<ValueId, ValueId>,
    /// The items those iterators give, with the collection and the header of the loop
    /// that takes them.
    items: FxHashMap<ValueId, (ValueId, Option<BasicBlock>)>,
    /// Items released in a loop: the body, the loop's header, the collection, how, and
    /// where.
    released: Vec<(BodyId, BasicBlock, ValueId, ReleaseKind, Span)>,
}

impl Handles {
    /// `dst = src`: a copy or move of an iterator over handles, or of a handle, is one.
    pub(crate) fn copied(&mut self, src: ValueId, dst: ValueId) {
        if let Some(&collection) = self.iters.get(&src) {
            self.iters.insert(dst, collection);
        }
        if let Some(&item) = self.items.get(&src) {
            self.items.insert(dst, item);
        }
    }
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// The first value `found` says something of, following `v` back through copies,
    /// moves and whole views of it.
    pub(crate) fn through_copies<T>(
        &self,
        v: ValueId,
        found: impl Fn(ValueId) -> Option<T>,
    ) -> Option<T> {
        let mut at = v;
        for _ in 0..16 {
            if let Some(t) = found(at) {
                return Some(t);
            }
            let next = [
                self.aliases.get(&at),
                self.whole_views.get(&at),
                self.scalar_copies.get(&at),
                self.pointees.get(&at),
            ]
            .into_iter()
            .flatten()
            .copied()
            .find(|&n| n != at)?;
            at = next;
        }
        None
    }

    /// `iter.map(f)`: its items are owed handles when `f` (a function of the crate or a
    /// closure) returns one.
    pub(crate) fn mapped_handles(&mut self, f: &Arg<'tcx>, dst: ValueId) {
        let owed = match f.ty.kind() {
            ty::FnDef(def, _) => {
                let id = def
                    .as_local()
                    .and_then(|local| self.cx.fn_ids.get(&local).copied());
                id.and_then(|id| {
                    // An edge of the call graph: a recursive function is lowered again
                    // once its own summary is known.
                    self.callees.push(id);
                    match self.summary_of(id)?.returns {
                        ReturnSummary::Alloc(released_by) => Some(released_by),
                        _ => None,
                    }
                })
            }
            ty::Closure(..) => match f.value.map(|v| self.value(v).kind.clone()) {
                // Only a closure that returns a pointer (in an `Ok` or `Some` too) may
                // return a handle: it is lowered here to see which.
                Some(ValueKind::Closure(body))
                    if self.pending_def(body).is_none() || self.closure_returns_pointer(body) =>
                {
                    self.lower_pending_closure(body, &[]);
                    self.returned_release(body)
                }
                _ => None,
            },
            _ => None,
        };
        // Handles owed to a releasing function (a C API's `*_free`), not boxes handed
        // out with `Box::into_raw`, which a structure that owns them usually keeps.
        if let Some(released_by @ ReleasedBy::Function(_)) = owed {
            self.handles.owed_items.insert(dst, released_by);
        }
    }

    /// Whether closure `body`, not lowered yet, returns a raw pointer, or one in the
    /// payload of an `Option` or a `Result`.
    fn closure_returns_pointer(&self, body: BodyId) -> bool {
        self.pending_return_ty(body).is_some_and(|returned| {
            returned.is_raw_ptr()
                || self
                    .payload(returned)
                    .is_some_and(|(_, payload)| payload.is_raw_ptr())
        })
    }

    /// How what closure `body` returns must be released, when it is new memory of its
    /// own (or the `Ok`/`Some` payload of its result is).
    fn returned_release(&self, body: BodyId) -> Option<ReleasedBy> {
        self.returned_parts(body).into_iter().find_map(|v| {
            let root = &self.roots[self.value(v).kind.root()?.0 as usize];
            (root.origin == RootOrigin::Alloc).then(|| root.released_by.clone())
        })
    }

    /// `iter.collect()` of owed handles: a new collection of them (in the `Ok` of a
    /// `Result` collected into), held only on the paths that go on to use it, as a
    /// collection that fails is made of no handle.
    pub(crate) fn collected_handles(
        &mut self,
        b: &BodyCx<'tcx>,
        iter: ValueId,
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) -> bool {
        let Some(released_by) = self.handles.owed_items.get(&iter).cloned() else {
            return false;
        };
        let holder = self.held_allocation(b, dst, dest_ty, released_by, None, span);
        if let Some(root) = self.value(holder).kind.root() {
            self.roots[root.0 as usize].held_from_use = true;
            self.handles.collections.insert(root);
        }
        true
    }

    /// Whether `v` is a collection of owed handles.
    pub(crate) fn holds_handles(&self, v: ValueId) -> bool {
        self.value(v)
            .kind
            .root()
            .is_some_and(|r| self.handles.collections.contains(&r))
    }

    /// `handles.into_iter()`, `handles.iter()`: an iterator over the handles.
    pub(crate) fn iter_over_handles(&mut self, collection: ValueId, dst: ValueId) {
        let owed = self.through_copies(collection, |v| self.holds_handles(v).then_some(v));
        if let Some(collection) = owed {
            self.handles.iters.insert(dst, collection);
        }
    }

    /// `it.next()` of an iterator over handles: `Some` of one handle of the collection.
    pub(crate) fn next_handle(
        &mut self,
        b: &BodyCx<'tcx>,
        iter_ref: ValueId,
        dst: ValueId,
        span: Span,
    ) -> bool {
        let Some(collection) =
            self.through_copies(iter_ref, |v| self.handles.iters.get(&v).copied())
        else {
            return false;
        };
        let root = self.value(collection).kind.root();
        let item = self.new_value(None, ValueKind::RawPtr(root), TyClass::RawPtr, span);
        // `Some` is variant 1 of `Option`.
        self.set_field(dst, 1, 0, item);
        let header = super::closures::innermost_loop(b).map(|l| l.header);
        self.handles.items.insert(item, (collection, header));
        true
    }

    /// A release of `v`: when it is a handle a loop takes from a collection of owed
    /// handles, the loop releases each of them, so the collection is released where
    /// the loop ends (and not once per round). Says whether it was such a handle.
    pub(crate) fn released_handle(
        &mut self,
        b: &BodyCx<'tcx>,
        v: ValueId,
        how: &ReleaseKind,
        span: Span,
    ) -> bool {
        let item = self.through_copies(v, |at| self.handles.items.get(&at).copied());
        let Some((collection, Some(header))) = item else {
            return false;
        };
        self.handles
            .released
            .push((b.id, header, collection, how.clone(), span));
        true
    }

    /// Once body `b` is lowered: the collections its loops released handle by handle
    /// are released on every edge out of those loops.
    pub(crate) fn finish_handle_releases(&mut self, b: &BodyCx<'tcx>) {
        let mine: Vec<(BasicBlock, ValueId, ReleaseKind, Span)> = self
            .handles
            .released
            .iter()
            .filter(|(body, ..)| *body == b.id)
            .map(|(_, header, collection, how, span)| (*header, *collection, how.clone(), *span))
            .collect();
        let mut done = Vec::new();
        for (header, collection, how, span) in mine {
            if done.contains(&(header, collection)) {
                continue;
            }
            done.push((header, collection));
            let Some(l) = b.loops.iter().find(|l| l.header == header) else {
                continue;
            };
            let inside = |bb: BasicBlock| l.blocks.get(bb.as_usize()).copied().unwrap_or(false);
            let mut exits: Vec<BasicBlock> = b
                .mir
                .basic_blocks
                .iter_enumerated()
                .filter(|(bb, _)| inside(*bb))
                .flat_map(|(_, data)| data.terminator().successors())
                .filter(|&s| {
                    let data = &b.mir.basic_blocks[s];
                    let unreachable =
                        matches!(data.terminator().kind, mir::TerminatorKind::Unreachable);
                    !inside(s) && !data.is_cleanup && !unreachable
                })
                .collect();
            exits.sort();
            exits.dedup();
            for exit in exits {
                if let Some(block) = self.bodies[b.id.0 as usize].blocks.get_mut(exit.as_usize()) {
                    block.stmts.insert(
                        0,
                        Stmt {
                            op: Op::Release {
                                value: collection,
                                how: how.clone(),
                            },
                            span,
                        },
                    );
                }
            }
        }
    }
}
