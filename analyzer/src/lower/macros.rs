//! The modelled macros: ndarray's `s![]`, `vec![]`, assertions, formatting and
//! diverging macros (`par_azip!` is a parallel region, in `parallel.rs`). Everything else
//! written as a macro is opaque.

use syn::parse::{ParseStream, Parser};

use super::slice_macro::{parse_slice_macro, SliceEntry};
use super::Lowerer;
use crate::ir::{EscapeKind, Op, ReleasedBy, SliceSpec, Terminator, TyClass, ValueId, ValueKind};
use crate::models::{self, MacroSem};
use crate::oracle::Expr;
use crate::source::Span;

/// How deep expansions of the crate's macros nest.
const MAX_EXPANSIONS: u32 = 8;

impl Lowerer<'_, '_, '_> {
    pub(crate) fn macro_call(&mut self, mac: &syn::Macro) -> ValueId {
        let span = self.span(
            mac.path
                .segments
                .last()
                .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        );
        let span = Span::new(
            self.file,
            span.lo as usize,
            self.span(mac.delimiter.span().close()).hi as usize,
        );
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match models::macro_sem(&name) {
            Some(MacroSem::Slice) => self.slice_macro(mac, span),
            Some(MacroSem::Vec) => self.vec_macro(mac, span),
            Some(MacroSem::Azip { parallel }) => self.azip_macro(mac, parallel, span),
            Some(MacroSem::Diverges) => {
                self.lower_format_args(mac, span);
                self.terminate(Terminator::Unreachable, span);
                self.unknown(span)
            }
            Some(MacroSem::Reads) => {
                self.lower_format_args(mac, span);
                self.unknown(span)
            }
            Some(MacroSem::Assert) => {
                let args = self.lower_format_args(mac, span);
                // Past `assert!(p.is_null())` the allocation `p` would hold did not happen.
                let tested = args.first().and_then(|c| self.null_tests.get(c)).copied();
                if let Some((p, true)) = tested {
                    self.emit(Op::AssumeNull { value: p }, span);
                }
                self.unknown(span)
            }
            None => self.crate_macro(&name, mac, span),
        }
    }

    /// An invocation of one of the crate's own `macro_rules!` macros: the code it
    /// expands to, lowered in its place. Expansions nest at most [`MAX_EXPANSIONS`]
    /// deep (a recursive macro beyond that stays opaque).
    fn crate_macro(&mut self, name: &str, mac: &syn::Macro, span: Span) -> ValueId {
        let rules = self
            .ctx
            .index
            .macro_rules(name)
            .filter(|_| self.expansions < MAX_EXPANSIONS);
        let Some(rules) = rules else {
            self.opaque_macro(name, mac.tokens.clone(), span);
            return self.unknown(span);
        };
        let at = mac
            .path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
        let Some(tokens) = crate::syntax::macro_rules::expand(rules, mac.tokens.clone(), at) else {
            self.opaque_macro(name, mac.tokens.clone(), span);
            return self.unknown(span);
        };
        let expr = syn::parse2::<syn::Expr>(tokens.clone()).or_else(|_| {
            // A body of statements (`let x = ..; f(x);`) reads as a block.
            let group = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, tokens);
            syn::parse2::<syn::Expr>(proc_macro2::TokenTree::Group(group).into())
        });
        let Ok(mut expr) = expr else {
            self.opaque_macro(name, mac.tokens.clone(), span);
            return self.unknown(span);
        };
        // The invisible groups around substituted expressions kept the precedence while
        // parsing; the lowering reads the expressions themselves.
        syn::visit_mut::VisitMut::visit_expr_mut(&mut Ungroup, &mut expr);
        self.expansions += 1;
        let v = self.expr(&expr);
        self.expansions -= 1;
        v
    }

    pub(crate) fn slice_macro(&mut self, mac: &syn::Macro, span: Span) -> ValueId {
        let out = self.unknown(span);
        let Some(args) = parse_slice_macro(mac.tokens.clone()) else {
            return out;
        };
        let mut specs = Vec::new();
        for entry in &args.0 {
            let spec = match entry {
                SliceEntry::NewAxis => SliceSpec::NewAxis,
                SliceEntry::Index(e) => {
                    let v = self.expr(e);
                    match self.val(v).int.clone() {
                        Some(i) => SliceSpec::Index(i),
                        None => return out,
                    }
                }
                SliceEntry::Range {
                    start,
                    end,
                    inclusive,
                    step,
                } => {
                    let int_of =
                        |l: &mut Self, e: &Option<Box<syn::Expr>>| -> Result<Option<Expr>, ()> {
                            match e {
                                Some(e) => {
                                    let v = l.expr(e);
                                    l.val(v).int.clone().map(Some).ok_or(())
                                }
                                None => Ok(None),
                            }
                        };
                    let (Ok(s), Ok(e), Ok(st)) =
                        (int_of(self, start), int_of(self, end), int_of(self, step))
                    else {
                        return out;
                    };
                    let e = if *inclusive { e.map(|e| &e + 1) } else { e };
                    SliceSpec::Range {
                        start: s,
                        end: e,
                        step: st.unwrap_or_else(|| Expr::int(1)),
                    }
                }
            };
            specs.push(spec);
        }
        self.slice_specs.insert(out, specs);
        out
    }

    pub(crate) fn vec_macro(&mut self, mac: &syn::Macro, span: Span) -> ValueId {
        let parser = |input: ParseStream| -> syn::Result<(Vec<syn::Expr>, bool)> {
            if input.is_empty() {
                return Ok((Vec::new(), false));
            }
            let first: syn::Expr = input.parse()?;
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                let n: syn::Expr = input.parse()?;
                return Ok((vec![first, n], true));
            }
            let mut items = vec![first];
            while input.peek(syn::Token![,]) {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                items.push(input.parse()?);
            }
            Ok((items, false))
        };
        let Ok((items, repeat)) = parser.parse2(mac.tokens.clone()) else {
            return self.alloc_value("vec!".into(), 4, None, ReleasedBy::Drop, TyClass::Vec, span);
        };
        // `vec![Slot::default(); n]` / `vec![Slot { .. }; n]` of a crate struct: its
        // layout, so padded per-thread slots are known as such.
        let elem_struct = items.first().and_then(|e| self.struct_of_expr(e));
        let bytes = items
            .first()
            .and_then(super::expr::literal_bytes)
            .or_else(|| {
                elem_struct
                    .as_ref()
                    .and_then(|(_, size)| u32::try_from(*size).ok())
            })
            .unwrap_or(8);
        let len = if repeat {
            self.expr(&items[0]);
            let n = self.expr(&items[1]);
            self.val(n).int.clone()
        } else {
            for e in &items {
                self.expr(e);
            }
            Some(Expr::int(items.len() as i64))
        };
        let out = self.alloc_value(
            "vec!".into(),
            bytes,
            len.map(|l| vec![l]),
            ReleasedBy::Drop,
            TyClass::Vec,
            span,
        );
        let elem_type = elem_struct
            .map(|(name, _)| name)
            .or_else(|| items.first().and_then(elem_type_name));
        if let (Some(name), Some(root)) = (elem_type, self.val(out).kind.root()) {
            if let Some(r) = self.roots.get_mut(root.0 as usize) {
                r.elem_type = Some(name);
            }
        }
        out
    }

    /// The crate struct an element expression builds (`Slot::default()`,
    /// `Slot::new(..)`, `Slot { .. }`), with its size when the layout is known.
    /// The crate struct a `vec!` element expression builds, with its size.
    pub(crate) fn struct_of_expr(&self, e: &syn::Expr) -> Option<(String, u64)> {
        let path = match e {
            syn::Expr::Struct(s) => s.path.segments.last()?.ident.to_string(),
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs: Vec<_> = p.path.segments.iter().collect();
                    segs.get(segs.len().checked_sub(2)?)?.ident.to_string()
                }
                _ => return None,
            },
            _ => return None,
        };
        let item = self.ctx.index.structs.iter().find(|s| s.name == path)?;
        Some((item.name.clone(), item.size?))
    }

    /// Lowers the comma-separated expressions of a formatting or assertion macro; memory
    /// values they mention are read.
    /// Lowers the arguments of a format-like macro; their values in order.
    pub(crate) fn lower_format_args(&mut self, mac: &syn::Macro, span: Span) -> Vec<ValueId> {
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let Ok(mut args) = parser.parse2(mac.tokens.clone()) else {
            return Vec::new();
        };
        let mut values = Vec::new();
        for a in args.iter_mut() {
            // Arguments a crate macro substituted come in invisible groups.
            syn::visit_mut::VisitMut::visit_expr_mut(&mut Ungroup, a);
        }
        for a in &args {
            let v = self.expr(a);
            values.push(v);
            if self.val(v).kind.is_memory() {
                self.emit(
                    Op::Read {
                        value: v,
                        region: None,
                    },
                    span,
                );
            }
        }
        values
    }
}

/// The element type a `vec!` element expression names: a literal's suffix (`0u64`), a
/// cast's type (`0 as u32`) or the type of a constructor (`CachePadded::new(0)`).
fn elem_type_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(l) => {
            let suffix = match &l.lit {
                syn::Lit::Int(i) => i.suffix(),
                syn::Lit::Float(f) => f.suffix(),
                _ => "",
            };
            (!suffix.is_empty()).then(|| suffix.to_string())
        }
        syn::Expr::Unary(u) => elem_type_name(&u.expr),
        syn::Expr::Paren(p) => elem_type_name(&p.expr),
        syn::Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => {
                let segs: Vec<_> = p.path.segments.iter().collect();
                let ty = segs.get(segs.len().checked_sub(2)?)?;
                Some(ty.ident.to_string())
            }
            _ => None,
        },
        _ => None,
    }
}

impl Lowerer<'_, '_, '_> {
    /// A macro this analysis cannot expand may store through the `&mut p` written in
    /// it: such a pointer may point elsewhere afterwards. It may also keep any raw
    /// pointer named in it (`register!(p as usize)` stores the address somewhere): the
    /// memory behind it is handed on to the macro.
    fn opaque_macro(&mut self, name: &str, tokens: proc_macro2::TokenStream, span: Span) {
        let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        for (i, t) in tokens.iter().enumerate() {
            use proc_macro2::TokenTree as T;
            match (t, tokens.get(i + 1), tokens.get(i + 2)) {
                (T::Punct(amp), Some(T::Ident(m)), Some(T::Ident(name)))
                    if amp.as_char() == '&' && m == "mut" =>
                {
                    let Some(v) = self.lookup(&name.to_string()) else {
                        continue;
                    };
                    if self.is_pointer_binding(v) {
                        self.points_elsewhere(v, span);
                    }
                }
                (T::Ident(ident), _, _) => {
                    // Not a field (`s.p`) or a path segment (`m::p`) of something else.
                    let member = i > 0
                        && matches!(&tokens[i - 1], T::Punct(p) if p.as_char() == '.' || p.as_char() == ':');
                    let Some(v) = self.lookup(&ident.to_string()).filter(|_| !member) else {
                        continue;
                    };
                    if matches!(self.val(v).kind, ValueKind::RawPtr(Some(_))) {
                        self.emit(
                            Op::Escape {
                                value: v,
                                how: EscapeKind::PassedOn(format!("{name}!")),
                            },
                            span,
                        );
                    }
                }
                (T::Group(g), _, _) => self.opaque_macro(name, g.stream(), span),
                _ => {}
            }
        }
    }
}

/// Replaces each invisible group (`Expr::Group`) by the expression in it.
struct Ungroup;

impl syn::visit_mut::VisitMut for Ungroup {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        while let syn::Expr::Group(g) = e {
            let inner = std::mem::replace(&mut *g.expr, syn::Expr::Verbatim(Default::default()));
            *e = inner;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
