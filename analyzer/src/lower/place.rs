//! Places: what an assignment, a compound assignment or an index expression reads and
//! writes — the memory value under the place and the region of it addressed.

use super::raw_ptr::is_null_pointer_call;
use super::{geometry, Lowerer};
use crate::ir::{
    EscapeKind, Op, ReleasedBy, RootOrigin, SliceSpec, TyClass, ValueId, ValueKind, ViewOp,
};
use crate::models;
use crate::oracle::{Expr, View};
use crate::source::Span;

/// Most places nest no deeper than this (`a.b[i].c[j]`); deeper ones are opaque.
const MAX_PLACE_DEPTH: u32 = 32;

/// How deep structs nested in fields are looked into to place every field.
const PLACED_NESTING: u32 = 4;

impl Lowerer<'_, '_, '_> {
    /// Lowers `place = value`.
    pub(crate) fn assign_expr(&mut self, a: &syn::ExprAssign, span: Span) -> ValueId {
        let rhs = self.expr(&a.right);
        if matches!(*a.right, syn::Expr::Path(_)) {
            self.mark_moved(rhs);
        }
        self.assign_to(&a.left, rhs, span);
        // `p = ptr::null_mut()` (after a release): `p` holds no allocation now.
        if is_null_pointer_call(&a.right) {
            if let syn::Expr::Path(lhs) = &*a.left {
                let name = lhs.path.get_ident().map(ToString::to_string);
                if let Some(p) = name.and_then(|n| self.lookup(&n)) {
                    if self.val(p).kind.is_memory() {
                        self.emit(Op::AssumeNull { value: p }, span);
                    }
                }
            }
        }
        self.unknown(span)
    }

    /// The memory value under a place and the region of it the place addresses.
    fn place_of(&mut self, e: &syn::Expr, depth: u32) -> Option<(ValueId, Option<View>)> {
        if depth > MAX_PLACE_DEPTH {
            self.truncated = true;
            return None;
        }
        match e {
            syn::Expr::Paren(p) => self.place_of(&p.expr, depth + 1),
            syn::Expr::Index(ix) => {
                let (base, region) = self.place_of(&ix.expr, depth + 1)?;
                let idx = self.expr(&ix.index);
                let indices = self.int_list(idx);
                let from = region.or_else(|| self.val(base).view.clone());
                let region = match (from, indices) {
                    (Some(v), Some(ix)) if !self.iters.contains_key(&idx) => {
                        geometry::index(&v, &ix)
                    }
                    _ => None,
                };
                Some((base, region))
            }
            syn::Expr::Field(f) => {
                let v = self.field_value(f);
                if self.val(v).kind.is_memory() {
                    return Some((v, None));
                }
                // A field of an element lies inside the element.
                self.place_of(&f.base, depth + 1)
            }
            // `**slot` through a smart wrapper of the element (`&mut CachePadded<u64>`)
            // is the element's own place.
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_))
                    && matches!(&*u.expr, syn::Expr::Unary(i) if matches!(i.op, syn::UnOp::Deref(_))) =>
            {
                self.place_of(&u.expr, depth + 1)
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                let p = self.expr(&u.expr);
                let region = self.val(p).view.clone();
                self.val(p).kind.is_memory().then_some((p, region))
            }
            _ => {
                let v = self.expr(e);
                self.val(v)
                    .kind
                    .is_memory()
                    .then(|| (v, self.val(v).view.clone()))
            }
        }
    }

    /// `lhs = rhs`.
    pub(crate) fn assign_to(&mut self, lhs: &syn::Expr, rhs: ValueId, span: Span) {
        match lhs {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                let Some(dst) = self.lookup(&name) else {
                    return;
                };
                self.val_mut(dst).reassigned = true;
                if !self.val(rhs).kind.is_memory() && self.val(dst).kind.is_memory() {
                    // `cur = (*cur).next`: the binding now holds a pointer loaded from
                    // memory, to a block this function knows nothing of.
                    self.points_elsewhere(dst, span);
                } else if self.val(rhs).kind.is_memory() {
                    self.emit(Op::Assign { dst, src: rhs }, span);
                    if !self.val(dst).kind.is_memory() {
                        let src = self.val(rhs).clone();
                        let d = self.val_mut(dst);
                        d.kind = match src.kind {
                            ValueKind::Root(r) => ValueKind::View(r),
                            k => k,
                        };
                        d.view = src.view;
                    }
                } else if self.val(dst).int != self.val(rhs).int {
                    // A reassigned integer no longer has one value.
                    self.val_mut(dst).int = None;
                }
            }
            syn::Expr::Field(f) => {
                if self.val(rhs).kind.is_memory() {
                    self.emit(
                        Op::Escape {
                            value: rhs,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
                // A field that holds a pointer or an owner is a slot of the object it
                // belongs to: storing into it writes the object, not what the old
                // value pointed to (`self.ptr = new` after freeing `self.ptr`).
                let slot = self.field_value(f);
                let holds_memory =
                    self.val(slot).kind.is_memory() && self.val(slot).ty.holds_memory();
                if holds_memory {
                    // The field holds what was stored from now on: a later read of it
                    // is no longer the old block.
                    if self.val(rhs).kind.is_memory() {
                        self.emit(
                            Op::Assign {
                                dst: slot,
                                src: rhs,
                            },
                            span,
                        );
                    } else {
                        self.points_elsewhere(slot, span);
                    }
                }
                let place = if holds_memory {
                    self.place_of(&f.base, 0)
                } else {
                    self.place_of(lhs, 0)
                };
                if let Some((base, region)) = place {
                    self.emit(
                        Op::Write {
                            value: base,
                            region,
                        },
                        span,
                    );
                }
            }
            syn::Expr::Tuple(t) => {
                let parts = self.tuples.get(&rhs).cloned();
                for (k, e) in t.elems.iter().enumerate() {
                    let part = parts
                        .as_ref()
                        .and_then(|p| p.get(k).copied())
                        .unwrap_or(rhs);
                    self.assign_to(e, part, span);
                }
            }
            syn::Expr::Infer(_) => {}
            _ => {
                // A pointer or an owner stored through a reference or into an element
                // (`*out = p`, `*slot.get_mut() = p`, `slots[i] = p`) is handed on,
                // wherever that place is; a view of an element stored into its own
                // buffer is not.
                let hands_on = matches!(
                    self.val(rhs).kind,
                    ValueKind::Root(_) | ValueKind::RawPtr(_)
                );
                let place = self.place_of(lhs, 0);
                let into_element = matches!(lhs, syn::Expr::Unary(_) | syn::Expr::Index(_));
                if self.val(rhs).kind.is_memory() && (hands_on || !into_element) {
                    self.emit(
                        Op::Escape {
                            value: rhs,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
                if let Some((base, region)) = place {
                    self.emit(
                        Op::Write {
                            value: base,
                            region,
                        },
                        span,
                    );
                }
            }
        }
    }

    /// The class of field `member` of the crate struct `base` points to, when that
    /// field holds a pointer or an owner of other memory.
    fn pointee_pointer_field(&self, base: ValueId, member: &str) -> Option<TyClass> {
        let root = self.val(base).kind.root()?;
        let elem = self.roots.get(root.0 as usize)?.elem_type.as_deref();
        // The struct the pointer was cast to (`Box::from_raw(p as *mut Private)`).
        let cast_to = self.declared.get(&base).map(String::as_str);
        let field = [elem, cast_to]
            .into_iter()
            .flatten()
            .filter_map(|ty| self.ctx.index.struct_named(ty))
            .find_map(|s| s.fields.iter().find(|f| f.name == member))?;
        // An `Option` of a pointer or owner is another block, or none.
        let optional = crate::models::is_optional_type(&field.ty_name) && field.elem_name.is_some();
        (field.ty.holds_memory() || optional).then_some(field.ty)
    }

    /// `dst` may now point to memory this function does not know: it is given a root of
    /// unknown origin beside the ones it had, so no release or use through it is taken
    /// for one of the old block.
    pub(crate) fn points_elsewhere(&mut self, dst: ValueId, span: Span) {
        let name = self
            .val(dst)
            .name
            .clone()
            .unwrap_or_else(|| "pointer".into());
        let elem = self.val(dst).view.as_ref().map_or(1, |v| v.elem_bytes);
        let other = self.pointer_to_unknown_block(name, elem, span);
        self.emit(Op::Assign { dst, src: other }, span);
    }

    /// `lhs op= rhs`: an in-place op on a tensor, or a read and write of a region.
    pub(crate) fn compound_assign(&mut self, lhs: &syn::Expr, rhs: ValueId, op: &str, span: Span) {
        let rhs_tensor = matches!(
            self.val(rhs).ty,
            TyClass::Array | TyClass::ArrayView | TyClass::Tensor
        );
        if self.val(rhs).kind.is_memory() && !rhs_tensor {
            // `acc += *x` / `acc += x` with an element reference reads the element.
            let region = self.val(rhs).view.clone();
            self.emit(Op::Read { value: rhs, region }, span);
        }
        if let syn::Expr::Path(p) = lhs {
            if p.path.segments.len() == 1 {
                let name = p.path.segments[0].ident.to_string();
                if let Some(dst) = self.lookup(&name) {
                    self.val_mut(dst).reassigned = true;
                    if self.val(dst).kind.is_memory() {
                        let srcs = if self.val(rhs).kind.is_memory() {
                            vec![rhs]
                        } else {
                            Vec::new()
                        };
                        self.emit(
                            Op::InPlace {
                                dst,
                                srcs,
                                method: op.to_string(),
                            },
                            span,
                        );
                    } else {
                        self.note_loop_carried(dst);
                        self.val_mut(dst).int = None;
                    }
                }
                return;
            }
        }
        if let Some((base, region)) = self.place_of(lhs, 0) {
            // `*a += ..` through a reference places the whole array too.
            let whole = region.is_none() || region.as_ref() == self.val(base).view.as_ref();
            if whole
                && matches!(
                    self.val(base).ty,
                    TyClass::Array | TyClass::ArrayView | TyClass::Tensor
                )
            {
                let srcs = if self.val(rhs).kind.is_memory() {
                    vec![rhs]
                } else {
                    Vec::new()
                };
                self.emit(
                    Op::InPlace {
                        dst: base,
                        srcs,
                        method: op.to_string(),
                    },
                    span,
                );
                return;
            }
            self.emit(
                Op::Read {
                    value: base,
                    region: region.clone(),
                },
                span,
            );
            self.emit(
                Op::Write {
                    value: base,
                    region,
                },
                span,
            );
        }
    }

    /// `a[i]`, `a[[i, j]]` read; `a[lo..hi]` is a view.
    pub(crate) fn index_read(&mut self, ix: &syn::ExprIndex, span: Span) -> ValueId {
        let base = self.expr(&ix.expr);
        if let syn::Expr::Range(r) = &*ix.index {
            let start = r.start.as_ref().map(|e| self.expr(e));
            let end = r.end.as_ref().map(|e| self.expr(e));
            let start = start.and_then(|v| self.val(v).int.clone());
            let end = end
                .and_then(|v| self.val(v).int.clone())
                .map(|e| match r.limits {
                    syn::RangeLimits::Closed(_) => &e + 1,
                    syn::RangeLimits::HalfOpen(_) => e,
                });
            let known =
                (r.start.is_none() || start.is_some()) && (r.end.is_none() || end.is_some());
            let how = if known {
                ViewOp::Slice(vec![SliceSpec::Range {
                    start,
                    end,
                    step: Expr::int(1),
                }])
            } else {
                ViewOp::Opaque("range index".into())
            };
            return self.derive_view(base, how, span);
        }
        let idx = self.expr(&ix.index);
        if !self.val(base).kind.is_memory() {
            // `a.shape()[0]`: a part of a tracked tuple.
            let k = self
                .val(idx)
                .int
                .as_ref()
                .and_then(|e| e.as_const())
                .and_then(|c| usize::try_from(c).ok());
            if let Some(&part) = k.and_then(|k| self.tuples.get(&base).and_then(|p| p.get(k))) {
                return part;
            }
            return self.unknown(span);
        }
        let global = self
            .root_of(base)
            .is_some_and(|r| r.origin == RootOrigin::Global);
        let region = match (self.val(base).view.clone(), self.int_list(idx)) {
            (Some(v), Some(ix)) => geometry::index(&v, &ix),
            // An entry of a `static` table chosen at run time (`LOCKS[hash % LEN]`).
            (Some(v), None) if global && !v.dims.is_empty() => {
                let i = self.run_time_index(v.dims[0].len.clone());
                geometry::index(&v, &[i])
            }
            _ => None,
        };
        self.emit(
            Op::Read {
                value: base,
                region: region.clone(),
            },
            span,
        );
        // The element itself: a scalar, or memory when the buffer holds buffers.
        let out = self.scalar(None, span);
        if let Some(root) = self.val(base).kind.root() {
            // An element that is itself a struct, atomic or padded cell is a place in
            // memory its methods and fields write (`slots[t].hits.fetch_add(1, ..)`).
            let aggregate = self
                .roots
                .get(root.0 as usize)
                .and_then(|r| r.elem_type.as_deref())
                .is_some_and(|t| !models::is_number_type(t));
            if aggregate {
                let v = self.val_mut(out);
                v.kind = ValueKind::View(root);
                v.ty = TyClass::Unknown;
                v.view = region;
            }
        }
        out
    }

    /// A struct literal of plain values of a crate-local struct whose field sizes are
    /// known: an object in memory, counted in bytes, so that threads writing different
    /// fields are seen writing different bytes of one object (false sharing). Fields are
    /// laid out in declaration order, as the struct's estimated size assumes.
    pub(crate) fn struct_memory(
        &mut self,
        name: &str,
        fields: &[(String, ValueId)],
        span: Span,
    ) -> Option<ValueId> {
        // A nested literal of a placed struct (`tx: Tx { .. }`) is bytes of this object.
        let nested_object = |l: &Self, v: ValueId| {
            l.is_struct_memory(v) && l.root_of(v).is_some_and(|r| r.origin == RootOrigin::Static)
        };
        if fields
            .iter()
            .any(|(_, v)| self.carries_memory(*v) && !nested_object(self, *v))
        {
            return None;
        }
        let v = self.struct_object(name, name, RootOrigin::Static, span)?;
        let root = self.val(v).kind.root()?;
        self.val_mut(v).kind = ValueKind::Root(root);
        Some(v)
    }

    /// An object of the crate struct `ty` in memory, counted in bytes with its fields
    /// in declaration order, as a view; `None` when a field's size is not known.
    pub(crate) fn struct_object(
        &mut self,
        name: &str,
        ty: &str,
        origin: RootOrigin,
        span: Span,
    ) -> Option<ValueId> {
        let item = self.ctx.index.struct_named(ty)?;
        let fields_bytes: u64 = item.fields.iter().map(|f| f.bytes).sum::<Option<u64>>()?;
        let size = i64::try_from(item.size?.max(fields_bytes)).ok()?;
        let root = self.new_root(
            name.to_string(),
            origin,
            1,
            Some(vec![Expr::int(size)]),
            ReleasedBy::NotOwned,
            span,
        );
        if let Some(r) = self.root_mut(root) {
            r.elem_type = Some(ty.to_string());
        }
        let v = self.new_value(None, ValueKind::View(root), TyClass::LocalStruct, span);
        self.val_mut(v).view = Some(View::contiguous(root, 1, vec![Expr::int(size)]));
        Some(v)
    }

    /// Whether the crate struct `name` has fields that are all numbers, atomics, cells
    /// or padded slots of known size: an object whose every field has a known place.
    pub(crate) fn is_placed_struct(&self, name: &str) -> bool {
        self.placed_within(name, PLACED_NESTING)
    }

    fn placed_within(&self, name: &str, depth: u32) -> bool {
        depth > 0
            && self.ctx.index.struct_named(name).is_some_and(|item| {
                // A buffer handle among the fields places the struct only when threads
                // share it for its synchronised fields (a channel's counters next to its
                // slots); a matrix of plain numbers and a `Vec` is data, not a place.
                let buffers = item.fields.iter().any(|f| f.ty == TyClass::Vec);
                let synchronised = item.fields.iter().any(|f| {
                    models::is_synchronised_type(&f.ty_name) || models::is_cell_type(&f.ty_name)
                });
                !item.fields.is_empty()
                    && (!buffers || synchronised)
                    && item.fields.iter().all(|f| self.field_is_placed(f, depth))
            })
    }

    /// A field of known size that is a number, an atomic, a cell, a padded slot, a
    /// placed struct itself, or the handle of a buffer kept elsewhere (a `Vec`, whose
    /// elements have a root of their own).
    fn field_is_placed(&self, f: &crate::index::FieldInfo, depth: u32) -> bool {
        f.bytes.is_some()
            && (f.ty == TyClass::Scalar
                || f.ty == TyClass::Vec
                || models::is_synchronised_type(&f.ty_name)
                || models::is_padded_type(&f.ty_name)
                || models::is_cell_type(&f.ty_name)
                || self.placed_within(&f.ty_name, depth.saturating_sub(1)))
    }

    /// The crate struct a parameter shares with other threads (`&Stats`, `Arc<Stats>`,
    /// `&Arc<Stats>`) when its fields are numbers, atomics, cells or padded slots of
    /// known size: threads writing different fields write different bytes of it.
    pub(crate) fn shared_struct_type(&self, ty: &syn::Type) -> Option<String> {
        let mut ty = ty;
        // Shared only behind a reference or a refcount; a struct passed by value is the
        // callee's own.
        let mut shared = false;
        loop {
            match ty {
                syn::Type::Reference(r) => {
                    shared = true;
                    ty = &r.elem;
                }
                syn::Type::Paren(p) => ty = &p.elem,
                syn::Type::Path(p) => {
                    let last = p.path.segments.last()?;
                    let name = last.ident.to_string();
                    if models::class_of_type_name(&name) == TyClass::Shared {
                        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                            return None;
                        };
                        ty = args.args.iter().find_map(|a| match a {
                            syn::GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })?;
                        shared = true;
                        continue;
                    }
                    if !shared {
                        return None;
                    }
                    return self.is_placed_struct(&name).then_some(name);
                }
                _ => return None,
            }
        }
    }

    /// Bytes `offset .. offset + len` of struct object `base`: one field's place.
    pub(crate) fn byte_range(
        &mut self,
        base: ValueId,
        offset: i64,
        len: i64,
        span: Span,
    ) -> ValueId {
        let how = ViewOp::Slice(vec![SliceSpec::Range {
            start: Some(Expr::int(offset)),
            end: Some(Expr::int(offset + len)),
            step: Expr::int(1),
        }]);
        self.derive_view(base, how, span)
    }

    /// Whether `v` is memory or a tuple or array with memory in it (`(ptr, len)`).
    pub(crate) fn carries_memory(&self, v: ValueId) -> bool {
        let mut work = vec![v];
        let mut seen = std::collections::HashSet::new();
        while let Some(v) = work.pop() {
            if !seen.insert(v) {
                continue;
            }
            if self.val(v).kind.is_memory() {
                return true;
            }
            if let Some(parts) = self.tuples.get(&v) {
                work.extend(parts);
            }
        }
        false
    }

    /// The bytes field `member` of a struct object from [`Self::struct_memory`] takes.
    fn struct_field_bytes(&self, base: ValueId, member: &str) -> Option<(i64, i64)> {
        let v = self.val(base);
        if v.ty != TyClass::LocalStruct {
            return None;
        }
        let root = self.roots.get(v.kind.root()?.0 as usize)?;
        if root.elem_bytes != 1 {
            return None;
        }
        let item = self.ctx.index.struct_named(root.elem_type.as_deref()?)?;
        item.field_places()
            .find(|(f, _, _)| f.name == member)
            .map(|(_, offset, bytes)| (offset, bytes))
    }

    /// The declaration of field `member` of the crate struct whose objects `base`'s
    /// memory holds.
    fn struct_field(&self, base: ValueId, member: &str) -> Option<crate::index::FieldInfo> {
        let root = self.roots.get(self.val(base).kind.root()?.0 as usize)?;
        let item = self.ctx.index.struct_named(root.elem_type.as_deref()?)?;
        item.fields.iter().find(|f| f.name == member).cloned()
    }

    /// Whether `member` of struct object `base` has a known place (a number, an
    /// atomic, a cell, a padded slot).
    fn struct_field_is_plain(&self, base: ValueId, member: &str) -> bool {
        self.struct_field(base, member)
            .is_some_and(|f| self.field_is_placed(&f, PLACED_NESTING))
    }

    /// Whether `member` of struct object `base` is a number (not an atomic or a cell):
    /// reading it gives its value.
    fn struct_field_is_number(&self, base: ValueId, member: &str) -> bool {
        self.struct_field(base, member)
            .is_some_and(|f| f.ty == TyClass::Scalar)
    }

    /// Whether `base` is a struct object from [`Self::struct_memory`].
    pub(crate) fn is_struct_memory(&self, base: ValueId) -> bool {
        let v = self.val(base);
        v.ty == TyClass::LocalStruct
            && self
                .root_of(base)
                .is_some_and(|r| r.elem_bytes == 1 && r.elem_type.is_some())
    }

    /// `base.member` as a value: a plain field of a struct object is read and yields a
    /// number; anything else is [`Self::field_value`].
    pub(crate) fn field_read(&mut self, f: &syn::ExprField, span: Span) -> ValueId {
        let v = self.field_value(f);
        let plain = self.val(v).ty == TyClass::Unknown
            && self.fields.iter().any(|((b, member), fv)| {
                *fv == v && self.is_struct_memory(*b) && self.struct_field_is_number(*b, member)
            });
        if !plain {
            return v;
        }
        let region = self.val(v).view.clone();
        self.emit(Op::Read { value: v, region }, span);
        self.scalar(None, span)
    }

    /// The value of `base.member`: a wrapped memory value, a lazily created root for a
    /// memory-typed field of `self`, or a scalar symbol.
    pub(crate) fn field_value(&mut self, f: &syn::ExprField) -> ValueId {
        let last = match &f.member {
            syn::Member::Named(n) => n.span(),
            syn::Member::Unnamed(i) => i.span,
        };
        let span = self.span_between(super::tokens::first_token(&f.base, 0), last);
        let base = self.expr(&f.base);
        let member = match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        self.mentioned_fields.insert((base, member.clone()));
        let unnamed = match &f.member {
            syn::Member::Unnamed(i) => Some(i.index as usize),
            syn::Member::Named(_) => None,
        };
        let v = self.field_value_of(unnamed, None, base, member, span);
        self.note_owner_part(base, v);
        v
    }

    /// The value of field `member` of `base` (`unnamed` is its position in a tuple
    /// struct; `object_type` the crate struct `base` is, when the code says so
    /// elsewhere).
    pub(crate) fn field_value_of(
        &mut self,
        unnamed: Option<usize>,
        object_type: Option<&str>,
        base: ValueId,
        member: String,
        span: Span,
    ) -> ValueId {
        let v = self.field_value_in(unnamed, object_type, base, member.clone(), span);
        if let Some(path) = self.piece_paths.get(&base).cloned() {
            self.piece_field(v, path, member);
        }
        v
    }

    fn field_value_in(
        &mut self,
        unnamed: Option<usize>,
        object_type: Option<&str>,
        base: ValueId,
        member: String,
        span: Span,
    ) -> ValueId {
        if let Some(&v) = self.fields.get(&(base, member.clone())) {
            return v;
        }
        if let Some(i) = unnamed {
            if let Some(&part) = self.tuples.get(&base).and_then(|p| p.get(i)) {
                return part;
            }
        }
        let plain_field = self.struct_field_is_plain(base, &member);
        if self.is_struct_memory(base) && !plain_field {
            // Only plain number fields have a known place; an array or wrapper field is
            // somewhere in the object.
            let v = self.derive_view(base, ViewOp::Opaque(format!("field {member}")), span);
            self.fields.insert((base, member), v);
            return v;
        }
        // A buffer field of an object (`self.slots: Vec<AtomicUsize>`): its handle is
        // bytes of the object, its elements are a block of their own.
        let buffer_field = self
            .struct_field(base, &member)
            .filter(|f| f.ty == TyClass::Vec && self.struct_field_bytes(base, &member).is_some());
        if let Some(field) = buffer_field {
            let name = format!("{}.{member}", self.val(base).name.as_deref().unwrap_or("_"));
            let elem = field
                .elem_name
                .as_deref()
                .and_then(|e| self.ctx.index.type_size_named(e))
                .and_then(|b| u32::try_from(b).ok())
                .unwrap_or(4);
            let root = self.new_root(
                name.clone(),
                RootOrigin::Unknown,
                elem,
                None,
                ReleasedBy::NotOwned,
                span,
            );
            if let Some(r) = self.root_mut(root) {
                r.elem_type = field.elem_name.clone();
            }
            let v = self.new_value(Some(name), ValueKind::View(root), TyClass::Vec, span);
            self.emit(Op::Load { dst: v, root }, span);
            self.fields.insert((base, member), v);
            return v;
        }
        if let Some((offset, bytes)) = self.struct_field_bytes(base, &member) {
            let v = self.byte_range(base, offset, bytes, span);
            let name = format!("{}.{member}", self.val(base).name.as_deref().unwrap_or("_"));
            let field = self.val_mut(v);
            field.name = Some(name);
            field.ty = TyClass::Unknown;
            self.fields.insert((base, member), v);
            return v;
        }
        if let Some(class) = self.pointee_pointer_field(base, &member) {
            // `(*node).next`, `node.as_ref().prev`: a pointer or owner stored in the
            // pointed-to struct is another block, loaded from memory.
            let region = self.val(base).view.clone();
            self.emit(
                Op::Read {
                    value: base,
                    region,
                },
                span,
            );
            let name = format!("{}.{member}", self.val(base).name.as_deref().unwrap_or("_"));
            let root = self.new_root(
                name.clone(),
                RootOrigin::Unknown,
                4,
                None,
                ReleasedBy::NotOwned,
                span,
            );
            let kind = match class {
                TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
                _ => ValueKind::View(root),
            };
            let v = self.new_value(Some(name), kind, class, span);
            self.emit(Op::Load { dst: v, root }, span);
            self.fields.insert((base, member), v);
            return v;
        }
        if self.val(base).kind.is_memory() && !self.is_owned_param(base) {
            // A wrapper (`SendPtr(p)`, `Slot { ptr }`) carries its memory in its field.
            let v = self.copy_value(base, None, span);
            self.emit(
                Op::View {
                    dst: v,
                    src: base,
                    how: ViewOp::Whole,
                },
                span,
            );
            self.fields.insert((base, member), v);
            return v;
        }
        let mut base_name = self.val(base).name.clone();
        // `self`, or another parameter of one of the crate's structs (`column: &mut
        // Column`): its memory fields reach the caller's buffers.
        let param = self
            .bodies
            .first()
            .and_then(|b| b.params.iter().position(|&p| p == base));
        let nested = self.struct_fields.get(&base).cloned();
        let owner = match (base_name.as_deref(), self.item.self_ty.as_deref(), param) {
            // A field of a crate struct that is itself a field (`self.result.index`).
            _ if nested.is_some() => nested,
            (Some("self"), Some(ty), _) => Some((ty.to_string(), RootOrigin::Param(0))),
            (_, _, Some(i)) => {
                if base_name.is_none() {
                    base_name = self.item.params.get(i).cloned();
                }
                self.declared
                    .get(&base)
                    .cloned()
                    .map(|ty| (ty, RootOrigin::Param(i)))
            }
            // A local object of a crate struct whose type a callee's receiver gives.
            _ => object_type.map(|ty| (ty.to_string(), RootOrigin::Unknown)),
        };
        let struct_field = owner.as_ref().and_then(|(ty, _)| {
            self.ctx
                .index
                .struct_named(ty)
                .and_then(|s| s.fields.iter().find(|fi| fi.name == member).cloned())
        });
        let origin = owner.map_or(RootOrigin::Param(0), |(_, o)| o);
        let name = format!("{}.{member}", base_name.as_deref().unwrap_or("_"));
        let v = match struct_field {
            Some(fi) if fi.ty.holds_memory() => {
                let elem = fi
                    .elem_bytes
                    .and_then(|b| u32::try_from(b).ok())
                    .filter(|&b| b > 0)
                    .unwrap_or(4);
                // A buffer field (`shards: Box<[RwLock<Map>]>`): its elements, as many
                // as its length.
                let buffer = matches!(fi.ty, TyClass::Vec | TyClass::Slice);
                let shape = buffer.then(|| vec![Expr::sym(&format!("{name}.len"))]);
                let root = self.new_root(
                    name.clone(),
                    origin,
                    elem,
                    shape.clone(),
                    ReleasedBy::NotOwned,
                    span,
                );
                if let Some(r) = self.root_mut(root) {
                    r.elem_type = fi.elem_name.clone();
                    r.field = Some(member.clone());
                }
                let kind = match fi.ty {
                    TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
                    _ => ValueKind::View(root),
                };
                let v = self.new_value(Some(name), kind, fi.ty, span);
                // A pointer field points at the start of its block, as far as this
                // function knows: offsets taken from it are offsets into that block.
                if fi.ty == TyClass::RawPtr {
                    self.val_mut(v).view = Some(View {
                        root,
                        elem_bytes: elem,
                        offset: Expr::int(0),
                        dims: Vec::new(),
                    });
                }
                if let Some(shape) = shape {
                    self.val_mut(v).view = Some(View::contiguous(root, elem, shape));
                }
                v
            }
            _ => {
                let v = self.scalar(Some(Expr::sym(&name)), span);
                self.val_mut(v).name = Some(name);
                self.val_mut(v).ty = TyClass::Unknown;
                // A field that is one of the crate's structs: its own fields reach the
                // same memory its owner's do.
                let nested = struct_field
                    .as_ref()
                    .filter(|fi| self.ctx.index.struct_named(&fi.ty_name).is_some())
                    .map(|fi| (fi.ty_name.clone(), origin.clone()));
                if let Some(nested) = nested {
                    self.struct_fields.insert(v, nested);
                }
                v
            }
        };
        self.fields.insert((base, member), v);
        v
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{FnIr, Op};

    fn function(text: &str) -> FnIr {
        let (ir, _) = crate::program::analyze_text(text);
        ir.functions().last().cloned().expect("a function")
    }

    /// Offsets and lengths of the regions written in `f`, in bytes of the struct.
    fn written(f: &FnIr) -> Vec<(Option<i64>, Option<i64>)> {
        f.stmts()
            .filter_map(|(_, _, s)| match &s.op {
                Op::Write { value, region } => {
                    let v = region
                        .clone()
                        .or_else(|| f.values[value.0 as usize].view.clone());
                    Some(v.map_or((None, None), |v| {
                        (
                            v.offset.as_const(),
                            v.dims.first().and_then(|d| d.len.as_const()),
                        )
                    }))
                }
                _ => None,
            })
            .collect()
    }

    const STATS: &str = "struct Stats { hits: u64, misses: u32, bins: [u64; 4] }";

    #[test]
    fn plain_fields_of_a_struct_literal_are_its_bytes() {
        let f = function(&format!(
            "{STATS} fn k() {{
                 let mut s = Stats {{ hits: 0, misses: 0, bins: empty_bins() }};
                 let h = &mut s.hits;
                 *h += 1;
                 s.misses = 2;
             }}"
        ));
        assert_eq!(written(&f), vec![(Some(0), Some(8)), (Some(8), Some(4))]);
    }

    #[test]
    fn array_fields_of_a_struct_have_no_known_place() {
        let f = function(&format!(
            "{STATS} fn k(t: usize) {{
                 let mut s = Stats {{ hits: 0, misses: 0, bins: empty_bins() }};
                 s.bins[t] += 1;
             }}"
        ));
        assert_eq!(written(&f), vec![(None, None)]);
    }

    #[test]
    fn reading_a_plain_field_gives_a_number() {
        let f = function(&format!(
            "{STATS} fn k() -> u64 {{
                 let s = Stats {{ hits: 0, misses: 0, bins: empty_bins() }};
                 s.hits
             }}"
        ));
        let escapes = f
            .stmts()
            .filter(|(_, _, s)| matches!(s.op, Op::Escape { .. }))
            .count();
        assert_eq!(escapes, 0);
    }
}
