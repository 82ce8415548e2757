//! `static` tables: a `static` array of the crate or of a function body is a root of
//! its own ([`RootOrigin::Global`]), the same memory wherever it is named. An index
//! into it computed at run time (`LOCKS[hash % LEN]`, a lock chosen by address) is a
//! symbol of its own per evaluation, within the table's bounds: the entry one call
//! reaches is not the entry the next one reaches. Summaries carry the table by name
//! ([`StaticTable`]) from a function that returns an entry, or writes one atomically,
//! to its callers.

use crate::index::{ArrayLen, StaticItem, TypeShape};
use crate::ir::{Iteration, ReleasedBy, RootOrigin, StaticTable, TyClass, ValueId, ValueKind};
use crate::models;
use crate::oracle::{Expr, View};
use crate::source::Span;

use super::Lowerer;

impl Lowerer<'_, '_, '_> {
    /// Records the `const` and `static` items declared in `block`: integer constants
    /// are bound as numbers, statics are tables the body may name.
    pub(crate) fn block_items(&mut self, block: &syn::Block) {
        for stmt in &block.stmts {
            let syn::Stmt::Item(item) = stmt else {
                continue;
            };
            match item {
                syn::Item::Const(c) => {
                    let value = crate::index::const_int(c).and_then(|v| i64::try_from(v).ok());
                    if let Some(v) = value {
                        let span = self.span(c.ident.span());
                        let s = self.scalar(Some(Expr::int(v)), span);
                        self.bind(c.ident.to_string(), s);
                    }
                }
                syn::Item::Static(st) => {
                    self.local_statics
                        .insert(st.ident.to_string(), StaticItem::of(&st.ty));
                }
                _ => {}
            }
        }
    }

    /// The `static` named `name` as a value, when it is a table whose element size is
    /// known.
    pub(crate) fn static_value(&mut self, name: &str, span: Span) -> Option<ValueId> {
        let table = self.static_table(name)?;
        let root = self.table_root(&table, span);
        let v = self.new_value(
            Some(name.to_string()),
            ValueKind::View(root),
            if table.shape.is_empty() {
                TyClass::Unknown
            } else {
                TyClass::Array
            },
            span,
        );
        self.val_mut(v).view = Some(View::contiguous(root, table.elem_bytes, table.shape));
        Some(v)
    }

    /// What the `static` named `name` is, in the body's own statics first.
    fn static_table(&mut self, name: &str) -> Option<StaticTable> {
        let item = self
            .local_statics
            .get(name)
            .or_else(|| self.ctx.index.static_named(name))?
            .clone();
        let elem_bytes = u32::try_from(self.ctx.index.shape_bytes(&item.elem)?).ok()?;
        let shape = item
            .dims
            .iter()
            .map(|d| match d {
                ArrayLen::Known(n) => i64::try_from(*n).ok().map(Expr::int),
                ArrayLen::Named(c) => self.constant(c),
                ArrayLen::Unknown => None,
            })
            .collect::<Option<Vec<Expr>>>()?;
        let elem_type = match &item.elem {
            TypeShape::Named { name, .. } => Some(name.clone()),
            _ => None,
        };
        Some(StaticTable {
            name: name.to_string(),
            elem_bytes,
            elem_type,
            shape,
        })
    }

    /// The number a constant named `name` holds: the body's own, or the crate's.
    fn constant(&mut self, name: &str) -> Option<Expr> {
        if let Some(i) = self.lookup(name).and_then(|v| self.val(v).int.clone()) {
            return Some(i);
        }
        let c = self.ctx.index.const_value(name)?;
        Some(Expr::int(i64::try_from(c).ok()?))
    }

    /// The root of `table` in this function, made on first use.
    fn table_root(&mut self, table: &StaticTable, span: Span) -> crate::ir::RootId {
        if let Some(&r) = self.static_roots.get(&table.name) {
            return r;
        }
        let root = self.new_root(
            table.name.clone(),
            RootOrigin::Global,
            table.elem_bytes,
            Some(table.shape.clone()),
            ReleasedBy::NotOwned,
            span,
        );
        if let Some(r) = self.root_mut(root) {
            r.elem_type = table.elem_type.clone();
        }
        self.static_roots.insert(table.name.clone(), root);
        root
    }

    /// One entry of `table` at an index computed at run time.
    pub(crate) fn table_entry(&mut self, table: &StaticTable, span: Span) -> ValueId {
        let root = self.table_root(table, span);
        let whole = View::contiguous(root, table.elem_bytes, table.shape.clone());
        let index: Vec<Expr> = table
            .shape
            .iter()
            .map(|len| self.run_time_index(len.clone()))
            .collect();
        let v = self.new_value(None, ValueKind::View(root), TyClass::Unknown, span);
        self.val_mut(v).view = super::geometry::index(&whole, &index);
        v
    }

    /// A symbol for an index in `0..len` computed at run time.
    pub(crate) fn run_time_index(&mut self, len: Expr) -> Expr {
        let symbol = self.fresh_symbol(models::RUN_TIME_INDEX);
        self.run_time_indices.push(Iteration {
            symbol: symbol.clone(),
            lo: Expr::int(0),
            hi: len,
            value: None,
        });
        Expr::sym(&symbol)
    }
}
