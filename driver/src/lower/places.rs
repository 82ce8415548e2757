//! Places: a local with projections (fields, derefs, indices, subslices) resolved to
//! the value the place holds or to the part of a root's memory it reaches.
//!
//! A place that names a whole value of the function (a local, a field of an aggregate
//! it built, a field of a parameter) is that value; a place behind a pointer or a
//! reference to memory is an access to the memory the pointer reaches, at the element
//! an index picks when the geometry is known. Fields of `Box`, `Unique` and `NonNull`
//! (what the compiler makes of a box's dereference) are the box itself.

use rustc_middle::mir::{self, PlaceElem};
use rustc_middle::ty::{self, Ty};

use tensor_lint_analyzer::ir::{ReleasedBy, RootOrigin, TyClass, ValueId, ValueKind, ViewOp};
use tensor_lint_analyzer::oracle::{Dim, Expr, View};
use tensor_lint_analyzer::source::Span;

use super::types;
use super::{BodyCx, FnLowerer};

/// Where a place is.
#[derive(Clone, Debug)]
pub(crate) enum Loc {
    /// The place holds this value.
    Value(ValueId),
    /// Memory reached through `base` (a pointer, a reference, a buffer, a view), `region`
    /// the part of the root when known.
    Memory { base: ValueId, region: Option<View> },
    /// Nothing this analysis follows.
    Unknown,
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// Resolves `place` of body `b`.
    pub(crate) fn place(&mut self, b: &BodyCx<'tcx>, place: &mir::Place<'tcx>, span: Span) -> Loc {
        let mir = b.mir;
        let mut projections = place.projection.iter().enumerate().peekable();
        let mut loc = Loc::Value(self.local(b, place.local));
        // A closure's captures: `_1.k` or `(*_1).k` is the value captured as upvar `k`.
        if b.id.0 != 0 && place.local.as_usize() == 1 {
            let mut skip = 0;
            if let Some((_, PlaceElem::Deref)) = projections.peek() {
                skip = 1;
            }
            let field = place.projection.get(skip).and_then(|elem| match elem {
                PlaceElem::Field(f, _) => Some(f.as_usize()),
                _ => None,
            });
            if let Some(upvar) = field.and_then(|f| b.upvars.get(f).copied()) {
                loc = Loc::Value(upvar);
                for _ in 0..=skip {
                    projections.next();
                }
            }
        }
        let mut variant = 0u32;
        for (k, elem) in projections {
            let base_ty = mir::PlaceRef {
                local: place.local,
                projection: &place.projection[..k],
            }
            .ty(mir, self.tcx)
            .ty;
            loc = match (loc, elem) {
                (Loc::Unknown, _) => Loc::Unknown,
                (loc, PlaceElem::Downcast(_, v)) => {
                    variant = v.as_u32();
                    loc
                }
                (loc, PlaceElem::OpaqueCast(_) | PlaceElem::UnwrapUnsafeBinder(_)) => loc,
                (Loc::Value(v), PlaceElem::Deref) => self.deref(v, base_ty, span),
                (Loc::Value(v), PlaceElem::Field(f, field_ty)) => {
                    let field = f.as_u32();
                    let owner = self.canonical(v);
                    self.mentioned_fields.insert((owner, field));
                    let var = std::mem::take(&mut variant);
                    if is_pointer_wrapper(self.tcx, base_ty) {
                        Loc::Value(v)
                    } else if let Some(cell) = self.object_cell(owner, base_ty, field, field_ty) {
                        cell
                    } else {
                        let stored_in_loop = b
                            .loop_stored_fields
                            .contains(&(place.local, place.projection[..=k].to_vec()));
                        Loc::Value(self.field_value(
                            v,
                            base_ty,
                            (var, field),
                            field_ty,
                            stored_in_loop,
                            span,
                        ))
                    }
                }
                (Loc::Value(v), PlaceElem::Index(local)) => {
                    let index = self.int_of(self.local(b, local));
                    self.indexed(v, index, span)
                }
                (
                    Loc::Value(v),
                    PlaceElem::ConstantIndex {
                        offset,
                        from_end: false,
                        ..
                    },
                ) => self.indexed(v, Some(Expr::int(offset as i64)), span),
                (Loc::Value(v), PlaceElem::Subslice { from, to, from_end }) => {
                    let region = self.value(v).view.clone().and_then(|view| {
                        let len = view.dims.first()?.len.clone();
                        let end = if from_end {
                            &len - &Expr::int(to as i64)
                        } else {
                            Expr::int(to as i64)
                        };
                        sub_range(&view, &Expr::int(from as i64), &end)
                    });
                    Loc::Memory { base: v, region }
                }
                (Loc::Value(_), _) => Loc::Unknown,
                (Loc::Memory { base, region }, PlaceElem::Index(local)) => {
                    let mut index = self.int_of(self.local(b, local));
                    // An entry of a `static` table picked at run time.
                    if index.is_none() && self.is_static_memory(base) {
                        if let Some(len) = region
                            .as_ref()
                            .and_then(|r| r.dims.first())
                            .map(|d| d.len.clone())
                        {
                            index = Some(self.run_time_index(len));
                        }
                    }
                    let region = match (region, index) {
                        (Some(r), Some(i)) => element(&r, &i),
                        _ => None,
                    };
                    Loc::Memory { base, region }
                }
                (
                    Loc::Memory { base, region },
                    PlaceElem::ConstantIndex {
                        offset,
                        from_end: false,
                        ..
                    },
                ) => {
                    let region = region.and_then(|r| element(&r, &Expr::int(offset as i64)));
                    Loc::Memory { base, region }
                }
                // A field of an element, or what a pointer stored in memory reaches:
                // memory of the same root, at a place this lowering does not refine.
                (Loc::Memory { base, region }, PlaceElem::Field(f, field_ty)) => {
                    let region =
                        region.map(|r| self.field_region(r, base_ty, f.as_usize(), field_ty));
                    Loc::Memory { base, region }
                }
                (Loc::Memory { base, .. }, _) => Loc::Memory { base, region: None },
            };
        }
        loc
    }

    /// `*v` of a value of type `ty`: the whole value a reference to one of this
    /// function's values points at, or the memory a pointer or reference reaches.
    pub(crate) fn deref(&mut self, v: ValueId, ty: Ty<'tcx>, span: Span) -> Loc {
        if let Some(&target) = self.pointees.get(&v) {
            return Loc::Value(target);
        }
        let Some(target_ty) = ty.builtin_deref(true).or_else(|| ty.boxed_ty()) else {
            return Loc::Unknown;
        };
        // What a pointer or reference into memory reaches is memory: `(*node).next`
        // reads a block.
        let into_memory = self.value(v).kind.root().is_some() || ty.is_raw_ptr();
        // A reference to a struct of the crate (`&mut self`, `&Pool`): the struct
        // itself, whose fields reach memory of their own.
        let class = types::class_of(self.tcx, target_ty);
        let whole = matches!(class, TyClass::LocalStruct | TyClass::Unknown)
            && !types::is_buffer(self.tcx, target_ty);
        // `*r` of `r = &x`, `x` a struct of the crate (a pointer newtype captured by
        // reference): `x` itself, not memory `x` points to.
        if whole {
            if let Some(&owner) = self.borrowed_owners.get(&v) {
                if class == TyClass::LocalStruct && self.value_types.get(&owner) == Some(&target_ty)
                {
                    return Loc::Value(owner);
                }
            }
        }
        if whole && !into_memory {
            let name = self.value(v).name.clone();
            let origin = self.param_index(v);
            let target = self.new_value(name, ValueKind::Unknown, class, span);
            if let Some(index) = origin {
                self.param_structs.insert(target, index);
            }
            if let Some(&bytes) = self.object_bytes.get(&v) {
                self.object_bytes.insert(target, bytes);
            }
            self.pointees.insert(v, target);
            return Loc::Value(target);
        }
        // `*r` of a reference to a box: the box, which is its pointer, so a reference
        // to it reaches what the box does (its fields, `Unique` and `NonNull`, are the
        // box itself).
        if target_ty.is_box() && !ty.is_box() && self.value(v).kind.is_memory() {
            return Loc::Value(v);
        }
        let region = self.value(v).view.clone();
        Loc::Memory { base: v, region }
    }

    /// `base[index]` of a value holding a buffer (a stack array, a slice value).
    fn indexed(&mut self, base: ValueId, index: Option<Expr>, span: Span) -> Loc {
        if self.value(base).kind.root().is_none() {
            self.stack_root(base, span);
        }
        let region = match (self.value(base).view.clone(), index) {
            (Some(view), Some(i)) => element(&view, &i),
            _ => None,
        };
        Loc::Memory { base, region }
    }

    /// The memory of an array held in a local (`let mut acc = [0.0; 8]`): a root of its
    /// own, not owed to anyone.
    fn stack_root(&mut self, v: ValueId, span: Span) {
        let Some(ty) = self.value_types.get(&v).copied() else {
            return;
        };
        let ty::Array(elem, len) = ty.kind() else {
            return;
        };
        let name = self.value(v).name.clone().unwrap_or_else(|| "array".into());
        let root = self.new_root(&name, RootOrigin::Static, *elem, ReleasedBy::NotOwned, span);
        let len = len
            .try_to_target_usize(self.tcx)
            .map(|n| Expr::int(n as i64));
        let elem_bytes = self.roots[root.0 as usize].elem_bytes;
        if let Some(len) = len {
            self.roots[root.0 as usize].shape = Some(vec![len.clone()]);
            self.value_mut(v).view = Some(View::contiguous(root, elem_bytes, vec![len]));
        }
        self.value_mut(v).kind = ValueKind::Root(root);
    }

    /// The value field `field` (of variant `variant`) of value `base` holds: what the
    /// aggregate was built from, or, for a parameter's struct, the memory of that field
    /// of the caller's object.
    pub(crate) fn field_value(
        &mut self,
        base: ValueId,
        base_ty: Ty<'tcx>,
        (variant, field): (u32, u32),
        field_ty: Ty<'tcx>,
        stored_in_loop: bool,
        span: Span,
    ) -> ValueId {
        if let Some(v) = self.field_of(base, variant, field) {
            return v;
        }
        // Named as the code reads it: `cells.0` of `let cells = self.cells`.
        let written = base;
        let base = self.canonical(base);
        let class = types::class_of(self.tcx, field_ty);
        let field_name = field_name(base_ty, variant, field);
        let base_name = self
            .value(written)
            .name
            .clone()
            .or_else(|| self.value(base).name.clone());
        let base_name = base_name.unwrap_or_else(|| "value".into());
        let name = format!("{base_name}.{field_name}");
        let kind = if class == TyClass::Scalar {
            ValueKind::Scalar
        } else {
            ValueKind::Unknown
        };
        // (A field of a value nobody named is not named either: `value.0` would be no
        // name a user wrote.)
        let shown = self.value(base).name.is_some().then(|| name.clone());
        let v = self.new_value(shown, kind, class, span);
        self.value_types.insert(v, field_ty);
        // A field of the caller's object reaches the caller's memory.
        if let Some(index) = self.param_structs.get(&base).copied() {
            self.param_structs.insert(v, index);
            let owned = types::owns_memory(self.tcx, field_ty);
            // A field a loop assigns (a cursor walking a chain) holds what the caller
            // gave only on the first round: which memory it reaches is not known.
            let elem = types::element_of(self.tcx, field_ty).filter(|_| !stored_in_loop);
            if let Some(elem) = elem {
                if class.holds_memory() || owned {
                    let root = self.caller_root(&name, index, elem, span);
                    self.roots[root.0 as usize].field = Some(field_name.clone());
                    let elem_bytes = self.roots[root.0 as usize].elem_bytes;
                    self.value_mut(v).kind = match class {
                        TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
                        _ => ValueKind::View(root),
                    };
                    // A pointer points at the first element, as a pointer parameter
                    // does; a buffer is one dimension of a length the caller picks.
                    let dims = if class == TyClass::RawPtr {
                        Vec::new()
                    } else {
                        let len = Expr::sym(&format!("{name}.len"));
                        self.roots[root.0 as usize].shape = Some(vec![len.clone()]);
                        vec![Dim::new(len, 1)]
                    };
                    self.value_mut(v).view = Some(View {
                        root,
                        elem_bytes,
                        offset: Expr::int(0),
                        dims,
                    });
                }
            }
            self.producer_field(base, &field_name, v);
        }
        self.set_field(base, variant, field, v);
        v
    }

    /// Field `field` of struct value `owner` of a parameter's object addressed by bytes
    /// (see `types::shared_cells`): a field of plain data (an atomic, a counter) is its
    /// bytes of the object; a struct field is a struct at its place in them (its own
    /// fields are found the same way). Any other field is left to `field_value`.
    fn object_cell(
        &mut self,
        owner: ValueId,
        base_ty: Ty<'tcx>,
        field: u32,
        field_ty: Ty<'tcx>,
    ) -> Option<Loc> {
        let &(bytes, at) = self.object_bytes.get(&owner)?;
        let offset = types::field_offset(self.tcx, self.env, base_ty, field as usize)?;
        let at = at + i64::try_from(offset).ok()?;
        if types::plain_data(self.tcx, self.env, field_ty) {
            let size = types::size_of(self.tcx, self.env, field_ty)?;
            let root = self.value(bytes).kind.root()?;
            let region = View {
                root,
                elem_bytes: 1,
                offset: Expr::int(at),
                dims: vec![Dim::new(Expr::int(i64::try_from(size).ok()?), 1)],
            };
            return Some(Loc::Memory {
                base: bytes,
                region: Some(region),
            });
        }
        let local_struct =
            matches!(field_ty.kind(), ty::Adt(adt, _) if adt.is_struct() && adt.did().is_local());
        if local_struct {
            let v = self.field_value(owner, base_ty, (0, field), field_ty, false, self.span);
            self.object_bytes.insert(self.canonical(v), (bytes, at));
            return Some(Loc::Value(v));
        }
        None
    }

    /// The bytes of a field (or a field of a field) of a struct held in a local of this
    /// function (`stats.valid`, `self.counts.hits` of a struct passed by value), when the
    /// field holds plain data (numbers, atomics, padded slots: nothing that points
    /// elsewhere): the struct's memory, a root of its own laid out as the compiler lays
    /// it out, and the field's region in it.
    pub(crate) fn field_bytes(
        &mut self,
        b: &BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        span: Span,
    ) -> Option<(ValueId, View)> {
        let tcx = self.tcx;
        if place.projection.is_empty()
            || !place
                .projection
                .iter()
                .all(|p| matches!(p, PlaceElem::Field(..)))
        {
            return None;
        }
        // A closure's captures are reached through its first local, not held in it.
        if b.id.0 != 0 && place.local.as_usize() == 1 {
            return None;
        }
        let local_ty = b.mir.local_decls[place.local].ty;
        let ty::Adt(adt, _) = local_ty.kind() else {
            return None;
        };
        if !adt.is_struct() {
            return None;
        }
        let mut offset = 0u64;
        let mut ty = local_ty;
        for elem in place.projection.iter() {
            let PlaceElem::Field(f, field_ty) = elem else {
                return None;
            };
            offset += types::field_offset(tcx, self.env, ty, f.as_usize())?;
            ty = field_ty;
        }
        if !types::plain_data(tcx, self.env, ty) {
            return None;
        }
        let size = types::size_of(tcx, self.env, ty)?;
        let whole = types::size_of(tcx, self.env, local_ty)?;
        let holder = self.canonical(self.local(b, place.local));
        if let Some(PlaceElem::Field(f, _)) = place.projection.first() {
            self.mentioned_fields.insert((holder, f.as_u32()));
        }
        let memory = match self.struct_bytes.get(&holder) {
            Some(&memory) => memory,
            None => {
                let name = self.display_name(holder);
                let root = self.new_root(
                    &name,
                    RootOrigin::Static,
                    tcx.types.u8,
                    ReleasedBy::NotOwned,
                    span,
                );
                let len = Expr::int(i64::try_from(whole).ok()?);
                self.roots[root.0 as usize].shape = Some(vec![len.clone()]);
                self.roots[root.0 as usize].elem_type = Some(types::short_name(tcx, local_ty));
                let memory =
                    self.new_value(Some(name), ValueKind::Root(root), TyClass::Unknown, span);
                self.value_mut(memory).view = Some(View::contiguous(root, 1, vec![len]));
                self.struct_bytes.insert(holder, memory);
                memory
            }
        };
        let root = self.value(memory).kind.root()?;
        let view = View {
            root,
            elem_bytes: 1,
            offset: Expr::int(i64::try_from(offset).ok()?),
            dims: vec![Dim::new(Expr::int(i64::try_from(size).ok()?), 1)],
        };
        Some((memory, view))
    }

    /// The name of the variable a closure's capture place (`(*_1).k`, `_1.k`) reads.
    pub(crate) fn capture_name(
        &self,
        b: &BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
    ) -> Option<String> {
        if b.id.0 == 0 || place.local.as_usize() != 1 {
            return None;
        }
        // `_1.k`, `(*_1).k`, and dereferences of them: the capture itself.
        let mut fields = place.projection.iter().filter(|p| *p != PlaceElem::Deref);
        let field = match (fields.next(), fields.next()) {
            (Some(PlaceElem::Field(f, _)), None) => f.as_usize(),
            _ => return None,
        };
        self.captured_variable(b, field)
    }

    /// The name of the variable a closure body's capture `k` (upvar `k`) is.
    /// A capture of a field alone (edition 2021 closures capture `cells.0` of `move ||
    /// cells.0.add(i)`) is named with its fields, as the code writes them.
    fn captured_variable(&self, b: &BodyCx<'tcx>, k: usize) -> Option<String> {
        let def = b.mir.source.def_id().as_local()?;
        let captures = self.tcx.closure_captures(def);
        let c = captures.get(k)?;
        let mut name = c.var_ident.name.to_string();
        for (i, proj) in c.place.projections.iter().enumerate() {
            let rustc_middle::hir::place::ProjectionKind::Field(idx, variant) = proj.kind else {
                continue;
            };
            match c.place.ty_before_projection(i).kind() {
                ty::Adt(adt, _) => {
                    name = format!("{name}.{}", adt.variant(variant).fields[idx].name);
                }
                ty::Tuple(_) => name = format!("{name}.{}", idx.index()),
                _ => return Some(c.var_ident.name.to_string()),
            }
        }
        Some(name)
    }

    /// How the user writes a place that ends in a field (`stats.pushed`, through any
    /// dereference), when its local is a named variable.
    pub(crate) fn place_name(&self, b: &BodyCx<'tcx>, place: &mir::Place<'tcx>) -> Option<String> {
        if !matches!(
            place.projection.last(),
            Some(PlaceElem::Field(..) | PlaceElem::Index(..))
        ) {
            return None;
        }
        let mut skip = 0;
        let mut name = self.value(self.local(b, place.local)).name.clone();
        // A closure's capture: `(*_1).k` is upvar `k`.
        if b.id.0 != 0 && place.local.as_usize() == 1 {
            if let Some(PlaceElem::Deref) = place.projection.first() {
                skip = 1;
            }
            if let Some(PlaceElem::Field(f, _)) = place.projection.get(skip) {
                // The variable the closure captured, as the user named it.
                name = self.captured_variable(b, f.as_usize()).or_else(|| {
                    b.upvars
                        .get(f.as_usize())
                        .and_then(|&u| self.value(u).name.clone())
                });
                skip += 1;
            }
        }
        let mut name = name?;
        for (k, elem) in place.projection.iter().enumerate().skip(skip) {
            match elem {
                PlaceElem::Deref => {}
                PlaceElem::Field(f, _) => {
                    let base_ty = mir::PlaceRef {
                        local: place.local,
                        projection: &place.projection[..k],
                    }
                    .ty(b.mir, self.tcx)
                    .ty;
                    // Through `Arc`/`Box`, the deref is the smart pointer's own field.
                    if is_pointer_wrapper(self.tcx, base_ty) {
                        continue;
                    }
                    name = format!("{name}.{}", field_name(base_ty, 0, f.as_u32()));
                }
                PlaceElem::Index(i) => {
                    let index = self.scalar_origin(self.local(b, i));
                    let index = self.value(index).name.clone()?;
                    name = format!("{name}[{index}]");
                }
                _ => return None,
            }
        }
        Some(name)
    }

    /// The bytes of field `field` of a struct whose memory `region` is, when the memory
    /// is addressed by bytes (an object's memory, [`types::shared_counters`]); any other
    /// region as it is.
    fn field_region(
        &self,
        region: View,
        base_ty: Ty<'tcx>,
        field: usize,
        field_ty: Ty<'tcx>,
    ) -> View {
        if region.elem_bytes != 1 || region.dims.len() != 1 {
            return region;
        }
        let at = types::field_offset(self.tcx, self.env, base_ty, field);
        match (at, types::size_of(self.tcx, self.env, field_ty)) {
            (Some(at), Some(size)) => View {
                root: region.root,
                elem_bytes: 1,
                offset: &region.offset + &Expr::int(i64::try_from(at).unwrap_or(0)),
                dims: vec![Dim::new(Expr::int(i64::try_from(size).unwrap_or(0)), 1)],
            },
            _ => region,
        }
    }

    /// Which parameter of the function `v` is, or reaches through a reference.
    pub(crate) fn param_index(&self, v: ValueId) -> Option<usize> {
        if let Some(&index) = self.param_structs.get(&v) {
            return Some(index);
        }
        let root = self.value(v).kind.root()?;
        match self.roots.get(root.0 as usize)?.origin {
            RootOrigin::Param(index) => Some(index),
            _ => None,
        }
    }

    /// Reads the value at `place` (an operand's `copy`/`move`): the value itself, or a
    /// read of the memory it is in, which yields a value of its own.
    pub(crate) fn read_place(
        &mut self,
        b: &BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        span: Span,
    ) -> Option<ValueId> {
        match self.place(b, place, span) {
            Loc::Value(v) => Some(v),
            Loc::Memory { base, region } => {
                self.emit(
                    b,
                    tensor_lint_analyzer::ir::Op::Read {
                        value: base,
                        region,
                    },
                    span,
                );
                let ty = place.ty(b.mir, self.tcx).ty;
                let class = types::class_of(self.tcx, ty);
                let kind = if class == TyClass::Scalar {
                    ValueKind::Scalar
                } else {
                    ValueKind::Unknown
                };
                let v = self.new_value(None, kind, class, span);
                self.value_types.insert(v, ty);
                // A pointer read from memory (`(*node).next`) points to a block of its
                // own, another one each time it is read.
                if class == TyClass::RawPtr {
                    let elem = types::element_of(self.tcx, ty).unwrap_or(self.tcx.types.u8);
                    let name = self.display_name(base);
                    let root =
                        self.new_root(&name, RootOrigin::Unknown, elem, ReleasedBy::NotOwned, span);
                    self.emit(b, tensor_lint_analyzer::ir::Op::Load { dst: v, root }, span);
                    let elem_bytes = self.roots[root.0 as usize].elem_bytes;
                    self.define(
                        v,
                        ValueKind::RawPtr(Some(root)),
                        Some(View {
                            root,
                            elem_bytes,
                            offset: Expr::int(0),
                            dims: Vec::new(),
                        }),
                    );
                }
                Some(v)
            }
            Loc::Unknown => None,
        }
    }

    /// The value of an operand; integer constants carry their value.
    pub(crate) fn operand(
        &mut self,
        b: &BodyCx<'tcx>,
        operand: &mir::Operand<'tcx>,
        span: Span,
    ) -> Option<ValueId> {
        match operand {
            mir::Operand::Copy(place) | mir::Operand::Move(place) => {
                self.read_place(b, place, span)
            }
            mir::Operand::Constant(constant) => {
                // `&LOCKS`: the static's memory.
                if let Some(def) = self.static_of(constant) {
                    return self.static_value(def, span);
                }
                let ty = constant.ty();
                let class = types::class_of(self.tcx, ty);
                // `&[16, 32]`, promoted to a constant: its numbers, as fields (a shape).
                if let Some(ints) = self.constant_ints(constant) {
                    let v = self.new_value(None, ValueKind::Unknown, class, span);
                    for (k, n) in ints.into_iter().enumerate() {
                        let field = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
                        self.value_mut(field).int = Some(Expr::int(n));
                        self.set_field(v, 0, k as u32, field);
                    }
                    return Some(v);
                }
                if class != TyClass::Scalar {
                    return None;
                }
                let v = self.new_value(None, ValueKind::Scalar, class, span);
                if ty.is_integral() {
                    let int = constant
                        .const_
                        .try_eval_scalar_int(self.tcx, self.env)
                        .and_then(|s| {
                            let size = s.size();
                            if ty.is_signed() {
                                i64::try_from(s.to_int(size)).ok()
                            } else {
                                i64::try_from(s.to_uint(size)).ok()
                            }
                        });
                    self.value_mut(v).int = int.map(Expr::int);
                }
                Some(v)
            }
            mir::Operand::RuntimeChecks(_) => None,
        }
    }

    /// Makes `dst` a view of `src` (`how`), placed at `view` in its root.
    pub(crate) fn derive(
        &mut self,
        b: &BodyCx<'tcx>,
        dst: ValueId,
        src: ValueId,
        how: ViewOp,
        view: Option<View>,
        span: Span,
    ) {
        // A whole view of a variable (`&producer`, its `deref()`) goes by its name.
        if how == ViewOp::Whole && self.value(dst).name.is_none() {
            let name = self.value(src).name.clone();
            self.value_mut(dst).name = name;
        }
        // A view of all of `src`, as `src` is laid out (`&x`, `x.deref()`).
        if how == ViewOp::Whole || (view.is_some() && view == self.value(src).view) {
            self.whole_views.insert(dst, src);
        }
        self.emit(
            b,
            tensor_lint_analyzer::ir::Op::View { dst, src, how },
            span,
        );
        let root = self.value(src).kind.root();
        let class = self.value(dst).ty;
        if let Some(root) = root {
            self.define(
                dst,
                match class {
                    TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
                    _ => ValueKind::View(root),
                },
                view,
            );
        }
    }

    /// Gives `v` its kind and place in its root; a second definition that disagrees
    /// makes the place unknown (the value is reassigned, on some path, to another).
    pub(crate) fn define(&mut self, v: ValueId, kind: ValueKind, view: Option<View>) {
        let defined = self.defined.contains(&v);
        let value = self.value_mut(v);
        // A place first read as memory it already held (a field of a parameter, given
        // its root when first used) and then assigned holds either, depending on where.
        if defined || value.kind.root().is_some() {
            value.reassigned = true;
            if value.view != view {
                value.view = None;
            }
            if matches!(value.kind, ValueKind::Unknown | ValueKind::Scalar) {
                value.kind = kind;
            }
        } else {
            value.kind = kind;
            value.view = view;
        }
        self.defined.insert(v);
    }

    /// The integer `v` holds, as an expression over symbolic sizes.
    pub(crate) fn int_of(&self, v: ValueId) -> Option<Expr> {
        self.value(v).int.clone()
    }
}

/// Element `index` of the first dimension of `view`.
pub(crate) fn element(view: &View, index: &Expr) -> Option<View> {
    let (first, rest) = view.dims.split_first()?;
    Some(View {
        root: view.root,
        elem_bytes: view.elem_bytes,
        offset: &view.offset + &(index * &first.stride),
        dims: rest.to_vec(),
    })
}

/// Indices `lo..hi` of the first dimension of `view`.
pub(crate) fn sub_range(view: &View, lo: &Expr, hi: &Expr) -> Option<View> {
    let (first, rest) = view.dims.split_first()?;
    let mut dims = vec![Dim {
        len: hi - lo,
        stride: first.stride.clone(),
    }];
    dims.extend(rest.iter().cloned());
    Some(View {
        root: view.root,
        elem_bytes: view.elem_bytes,
        offset: &view.offset + &(lo * &first.stride),
        dims,
    })
}

/// `Box`, `Unique`, `NonNull`: wrappers around one pointer, whose field is the pointer.
fn is_pointer_wrapper<'tcx>(tcx: ty::TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    ty.is_box()
        || types::adt_is(tcx, ty, "core", "Unique")
        || types::adt_is(tcx, ty, "core", "NonNull")
}

/// The name of a field as written (`data`, or `0` for a tuple field).
pub(crate) fn field_name<'tcx>(ty: Ty<'tcx>, variant: u32, field: u32) -> String {
    if let ty::Adt(adt, _) = ty.kind() {
        let variant = adt
            .variants()
            .iter()
            .nth(variant as usize)
            .or_else(|| adt.variants().iter().next());
        if let Some(f) = variant.and_then(|v| v.fields.iter().nth(field as usize)) {
            return f.name.to_string();
        }
    }
    field.to_string()
}
