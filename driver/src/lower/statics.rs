//! `static` tables: a `static` the code names (a constant pointer to it, in MIR) is a
//! root of its own ([`RootOrigin::Global`]), laid out as its type says (nested arrays
//! give its dimensions). An index into one that is computed at run time (`LOCKS[hash &
//! MASK]`, a lock chosen by address) is a symbol of its own per evaluation, within the
//! table's bounds: the entry one call reaches is not the entry the next one reaches.
//! Summaries carry the table ([`StaticTable`]) from a function that returns an entry,
//! or writes one atomically, to its callers.

use rustc_hir::def_id::DefId;
use rustc_middle::mir::interpret::{GlobalAlloc, Scalar};
use rustc_middle::mir::{self, ConstValue};
use rustc_middle::ty;

use tensor_lint_analyzer::ir::{
    Iteration, ReleasedBy, RootId, RootOrigin, StaticTable, TyClass, ValueId, ValueKind,
};
use tensor_lint_analyzer::models::RUN_TIME_INDEX;
use tensor_lint_analyzer::oracle::{Expr, View};
use tensor_lint_analyzer::source::Span;

use super::{types, FnLowerer};

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// The `static` a constant points to (`&LOCKS` in MIR), if any.
    pub(crate) fn static_of(&self, constant: &mir::ConstOperand<'tcx>) -> Option<DefId> {
        let mir::Const::Val(ConstValue::Scalar(Scalar::Ptr(ptr, _)), _) = constant.const_ else {
            return None;
        };
        match self.tcx.try_get_global_alloc(ptr.provenance.alloc_id())? {
            GlobalAlloc::Static(def) => Some(def),
            _ => None,
        }
    }

    /// The numbers of a constant reference to an array of integers (`&[16, 32]`).
    pub(crate) fn constant_ints(&self, constant: &mir::ConstOperand<'tcx>) -> Option<Vec<i64>> {
        let tcx = self.tcx;
        let ty::Ref(_, inner, _) = constant.ty().kind() else {
            return None;
        };
        let ty::Array(elem, len) = inner.kind() else {
            return None;
        };
        if !elem.is_integral() {
            return None;
        }
        let len = usize::try_from(len.try_to_target_usize(tcx)?).ok()?;
        let size = usize::try_from(types::size_of(tcx, self.env, *elem)?).ok()?;
        let value = constant.const_.eval(tcx, self.env, constant.span).ok()?;
        let ConstValue::Scalar(Scalar::Ptr(ptr, _)) = value else {
            return None;
        };
        let (prov, offset) = ptr.into_raw_parts();
        let GlobalAlloc::Memory(alloc) = tcx.try_get_global_alloc(prov.alloc_id())? else {
            return None;
        };
        let start = usize::try_from(offset.bytes()).ok()?;
        let alloc = alloc.inner();
        if start + len * size > alloc.len() || !(1..=8).contains(&size) {
            return None;
        }
        let bytes =
            alloc.inspect_with_uninit_and_ptr_outside_interpreter(start..start + len * size);
        let signed = elem.is_signed();
        Some(
            bytes
                .chunks(size)
                .map(|chunk| {
                    let mut word = [0u8; 8];
                    word[..size].copy_from_slice(chunk);
                    let raw = u64::from_le_bytes(word);
                    if signed && size < 8 && raw >> (size * 8 - 1) & 1 == 1 {
                        (raw | (!0u64 << (size * 8))) as i64
                    } else {
                        raw as i64
                    }
                })
                .collect(),
        )
    }

    /// A reference to the `static` `def`: a view of all of its memory.
    pub(crate) fn static_value(&mut self, def: DefId, span: Span) -> Option<ValueId> {
        let table = self.static_table(def)?;
        let root = self.table_root(&table, span);
        let v = self.new_value(
            Some(table.name.clone()),
            ValueKind::View(root),
            TyClass::Unknown,
            span,
        );
        self.value_mut(v).view = Some(View::contiguous(root, table.elem_bytes, table.shape));
        Some(v)
    }

    /// What the `static` `def` is: its elements' size and type, and its dimensions.
    fn static_table(&self, def: DefId) -> Option<StaticTable> {
        let tcx = self.tcx;
        let declared = tcx.type_of(def).instantiate_identity().skip_normalization();
        // Normalized, so that a length given by a constant (`[L; LEN]`) is its value.
        let mut ty = tcx
            .try_normalize_erasing_regions(self.env, ty::Unnormalized::new(declared))
            .unwrap_or(declared);
        let mut shape = Vec::new();
        while let ty::Array(elem, len) = ty.kind() {
            let len = len.try_to_target_usize(tcx)?;
            shape.push(Expr::int(i64::try_from(len).ok()?));
            ty = *elem;
        }
        let elem_bytes = u32::try_from(types::size_of(tcx, self.env, ty)?).ok()?;
        Some(StaticTable {
            name: tcx.item_name(def).to_string(),
            elem_bytes: elem_bytes.max(1),
            elem_type: Some(types::short_name(tcx, ty)),
            shape,
        })
    }

    /// The root of `table` in this function, made on first use.
    fn table_root(&mut self, table: &StaticTable, span: Span) -> RootId {
        if let Some(&root) = self.static_roots.get(&table.name) {
            return root;
        }
        let root = self.new_root(
            &table.name,
            RootOrigin::Global,
            self.tcx.types.u8,
            ReleasedBy::NotOwned,
            span,
        );
        let r = &mut self.roots[root.0 as usize];
        r.elem_bytes = table.elem_bytes;
        r.elem_type = table.elem_type.clone();
        r.shape = Some(table.shape.clone());
        self.static_roots.insert(table.name.clone(), root);
        root
    }

    /// One entry of `table` at an index computed at run time, as value `dst`.
    pub(crate) fn table_entry(
        &mut self,
        b: &super::BodyCx<'tcx>,
        table: &StaticTable,
        dst: ValueId,
        span: Span,
    ) {
        let root = self.table_root(table, span);
        let whole = View::contiguous(root, table.elem_bytes, table.shape.clone());
        let index: Vec<Expr> = table
            .shape
            .iter()
            .map(|len| self.run_time_index(len.clone()))
            .collect();
        let view = tensor_lint_analyzer::ir::geometry::index(&whole, &index);
        let memory = self.new_value(
            Some(table.name.clone()),
            ValueKind::View(root),
            TyClass::Unknown,
            span,
        );
        self.value_mut(memory).view = Some(whole);
        let how = tensor_lint_analyzer::ir::ViewOp::Opaque("entry".into());
        self.derive(b, dst, memory, how, view, span);
    }

    /// Whether `v` reaches a `static` table.
    pub(crate) fn is_static_memory(&self, v: ValueId) -> bool {
        self.value(v)
            .kind
            .root()
            .is_some_and(|r| self.roots[r.0 as usize].origin == RootOrigin::Global)
    }

    /// A symbol for an index in `0..len` computed at run time.
    pub(crate) fn run_time_index(&mut self, len: Expr) -> Expr {
        let symbol = format!("{RUN_TIME_INDEX}#{}", self.run_time_indices.len() + 1);
        self.run_time_indices.push(Iteration {
            symbol: symbol.clone(),
            lo: Expr::int(0),
            hi: len,
            value: None,
        });
        Expr::sym(&symbol)
    }
}
