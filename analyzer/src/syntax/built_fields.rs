//! Where the fields of the values a method builds of its own type come from: the
//! receiver's field itself (`Self { world: self.world, .. }`), what a method of that
//! field's type keeps of it (`let (l, r) = self.range.split_at(k); Self { range: l }`),
//! or something else. A parallel producer's `split` that keeps a field gives every
//! piece the same value of it; the other fields are what tells the pieces apart.

use std::collections::HashMap;

use syn::visit::Visit;

/// Where one field of the values a method builds comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldSource {
    /// The receiver's own field, moved, copied or cloned.
    Kept,
    /// The result of the named method called on the receiver's field: the parts of the
    /// field that method keeps.
    Via(String),
    /// Anything else.
    Changed,
}

/// The fields of every literal of type `self_ty` (or `Self`) that `block` builds, with
/// where each comes from; empty when it builds none. A field two literals fill
/// differently is [`FieldSource::Changed`].
pub fn built_fields(block: &syn::Block, self_ty: &str) -> Vec<(String, FieldSource)> {
    let mut finder = Literals {
        self_ty,
        locals: HashMap::new(),
        fields: Vec::new(),
    };
    finder.visit_block(block);
    finder.fields
}

struct Literals<'s> {
    self_ty: &'s str,
    /// Bindings made from the receiver's fields, by name.
    locals: HashMap<String, (String, FieldSource)>,
    fields: Vec<(String, FieldSource)>,
}

/// `self.f`, `self.f.clone()`, `(self.f)` and `&self.f`: the field `f` of the receiver.
fn receiver_field(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Field(f) => match (&*f.base, &f.member) {
            (syn::Expr::Path(p), member) if p.path.is_ident("self") => Some(match member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            }),
            _ => None,
        },
        syn::Expr::Paren(p) => receiver_field(&p.expr),
        syn::Expr::Reference(r) => receiver_field(&r.expr),
        syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
            receiver_field(&m.receiver)
        }
        _ => None,
    }
}

/// The source of a value written `e`.
fn source_of(e: &syn::Expr) -> Option<(String, FieldSource)> {
    if let Some(f) = receiver_field(e) {
        return Some((f, FieldSource::Kept));
    }
    match e {
        syn::Expr::MethodCall(m) => {
            receiver_field(&m.receiver).map(|f| (f, FieldSource::Via(m.method.to_string())))
        }
        syn::Expr::Paren(p) => source_of(&p.expr),
        _ => None,
    }
}

fn pattern_names(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(i) => out.push(i.ident.to_string()),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| pattern_names(e, out)),
        syn::Pat::Type(t) => pattern_names(&t.pat, out),
        syn::Pat::Paren(p) => pattern_names(&p.pat, out),
        _ => {}
    }
}

impl Literals<'_> {
    fn field_source(&self, field: &str, e: &syn::Expr) -> FieldSource {
        let found = match e {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.locals.get(&i.to_string()).cloned()),
            other => source_of(other),
        };
        match found {
            Some((f, source)) if f == field => source,
            _ => FieldSource::Changed,
        }
    }

    fn record(&mut self, field: String, source: FieldSource) {
        match self.fields.iter_mut().find(|(f, _)| *f == field) {
            Some((_, old)) if *old != source => *old = FieldSource::Changed,
            Some(_) => {}
            None => self.fields.push((field, source)),
        }
    }
}

impl<'ast> Visit<'ast> for Literals<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            let mut names = Vec::new();
            pattern_names(&l.pat, &mut names);
            for n in names {
                match source_of(&init.expr) {
                    Some(source) => self.locals.insert(n, source),
                    None => self.locals.remove(&n),
                };
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        let named = s.path.segments.last().map(|seg| seg.ident.to_string());
        let ours = named.as_deref() == Some(self.self_ty) || s.path.is_ident("Self");
        if ours {
            for fv in &s.fields {
                let name = match &fv.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                let source = self.field_source(&name, &fv.expr);
                self.record(name, source);
            }
        }
        syn::visit::visit_expr_struct(self, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(code: &str) -> Vec<(String, FieldSource)> {
        let f: syn::ItemFn = syn::parse_str(code).expect("a function");
        built_fields(&f.block, "Piece")
    }

    #[test]
    fn fields_copied_from_the_receiver_are_kept_and_split_ones_are_not() {
        let fields = built(
            "fn split(self) -> (Self, Self) {
                let base = self.base;
                let (l, r) = self.range.split_at(2);
                let mid = self.len / 2;
                (Piece { base, range: l, len: mid }, Self { base: self.base.clone(), range: r, len: mid })
            }",
        );
        assert_eq!(
            fields,
            vec![
                ("base".to_string(), FieldSource::Kept),
                ("range".to_string(), FieldSource::Via("split_at".into())),
                ("len".to_string(), FieldSource::Changed),
            ]
        );
    }

    #[test]
    fn a_field_filled_from_another_field_or_differently_is_changed() {
        let fields = built(
            "fn split(self) -> (Self, Self) {
                (Piece { a: self.b, c: self.c }, Piece { a: self.a, c: self.c.offset(1) })
            }",
        );
        assert_eq!(
            fields,
            vec![
                ("a".to_string(), FieldSource::Changed),
                ("c".to_string(), FieldSource::Changed),
            ]
        );
    }
}
