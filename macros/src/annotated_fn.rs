//! The item an annotation is attached to.
//!
//! Function annotations need the function's name and parameters to check their
//! arguments; any other item only needs describing, for the error that says the
//! annotation does not belong there. Bodies are skipped, never parsed: rustc reports
//! their errors itself, and skipping keeps expansion cheap on large kernels.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, FnArg, Ident, Item, Pat, ReturnType, Signature, Type, Visibility};

/// A function (free, method, trait method with or without a default body, or a
/// function of an `extern` block) as far as annotations care about it.
#[derive(Debug)]
pub(crate) struct AnnotatedFn {
    pub(crate) name: Ident,
    /// Every name the parameters bind, in order, with `self` first for methods.
    pub(crate) params: Vec<Ident>,
    /// `false` for `fn f()` and `fn f() -> ()`.
    pub(crate) returns_value: bool,
}

impl AnnotatedFn {
    pub(crate) fn param_names(&self) -> Vec<String> {
        self.params.iter().map(Ident::to_string).collect()
    }
}

/// Reads `item` as a function, or explains which kind of item it is instead.
///
/// `annotation` is the attribute's name as users write it (`free`), for the message.
pub(crate) fn parse_annotated_fn(annotation: &str, item: TokenStream) -> syn::Result<AnnotatedFn> {
    match syn::parse2::<FnItem>(item.clone()) {
        Ok(fn_item) => Ok(AnnotatedFn::from_signature(fn_item.signature)),
        Err(_) => Err(not_a_function(annotation, item)),
    }
}

impl AnnotatedFn {
    fn from_signature(signature: Signature) -> AnnotatedFn {
        let mut params = Vec::new();
        for input in &signature.inputs {
            match input {
                FnArg::Receiver(receiver) => {
                    params.push(Ident::new("self", receiver.self_token.span));
                }
                FnArg::Typed(typed) => collect_bindings(&typed.pat, &mut params),
            }
        }
        let returns_value = match &signature.output {
            ReturnType::Default => false,
            ReturnType::Type(_, ty) => !is_unit(ty),
        };
        AnnotatedFn {
            name: signature.ident,
            params,
            returns_value,
        }
    }
}

/// `fn` items in every position an attribute macro can see them: the signature, then a
/// body or (trait and `extern` declarations) a semicolon.
struct FnItem {
    signature: Signature,
}

impl Parse for FnItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.call(Attribute::parse_outer)?;
        input.parse::<Visibility>()?;
        // `safe fn` (Rust 2024) declares a safe function of an `unsafe extern` block;
        // syn's `Signature` does not know the qualifier.
        if input.peek(Ident)
            && input
                .fork()
                .parse::<Ident>()
                .is_ok_and(|word| word == "safe")
        {
            input.parse::<Ident>()?;
        }
        let signature: Signature = input.parse()?;
        if input.peek(syn::Token![;]) {
            input.parse::<syn::Token![;]>()?;
        } else {
            let body;
            syn::braced!(body in input);
            body.parse::<TokenStream>()?;
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the function"));
        }
        Ok(FnItem { signature })
    }
}

/// Pushes every identifier a parameter pattern binds: `mut x`, `(a, b)`,
/// `Point { x, y }`, `&[first, ..]`.
fn collect_bindings(pat: &Pat, out: &mut Vec<Ident>) {
    match pat {
        Pat::Ident(binding) => {
            out.push(binding.ident.clone());
            if let Some((_, subpattern)) = &binding.subpat {
                collect_bindings(subpattern, out);
            }
        }
        Pat::Tuple(tuple) => tuple.elems.iter().for_each(|p| collect_bindings(p, out)),
        Pat::TupleStruct(tuple) => tuple.elems.iter().for_each(|p| collect_bindings(p, out)),
        Pat::Struct(strukt) => strukt
            .fields
            .iter()
            .for_each(|field| collect_bindings(&field.pat, out)),
        Pat::Slice(slice) => slice.elems.iter().for_each(|p| collect_bindings(p, out)),
        // Every alternative binds the same names, so the first one lists them all.
        Pat::Or(or) => or
            .cases
            .iter()
            .take(1)
            .for_each(|p| collect_bindings(p, out)),
        Pat::Reference(reference) => collect_bindings(&reference.pat, out),
        Pat::Paren(paren) => collect_bindings(&paren.pat, out),
        Pat::Type(typed) => collect_bindings(&typed.pat, out),
        _ => {}
    }
}

fn is_unit(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Paren(paren) => is_unit(&paren.elem),
        Type::Group(group) => is_unit(&group.elem),
        _ => false,
    }
}

/// The error for a function annotation on another item, pointed at the item's keyword
/// and name (the whole item would underline pages of code).
fn not_a_function(annotation: &str, item: TokenStream) -> syn::Error {
    let (kind, head) = match syn::parse2::<Item>(item.clone()) {
        Ok(parsed) => describe_item(&parsed),
        Err(_) => (None, None),
    };
    let head = head.unwrap_or(item);
    let message = match kind {
        Some(kind) => format!(
            "`#[tensor_lint::{annotation}]` can only be applied to functions, not to {kind}"
        ),
        None => format!("`#[tensor_lint::{annotation}]` can only be applied to functions"),
    };
    if head.is_empty() {
        syn::Error::new(Span::call_site(), message)
    } else {
        syn::Error::new_spanned(head, message)
    }
}

/// A noun phrase for the item's kind and the tokens that introduce it.
fn describe_item(item: &Item) -> (Option<&'static str>, Option<TokenStream>) {
    let (kind, head) = match item {
        Item::Const(c) => ("a constant", {
            let (keyword, name) = (&c.const_token, &c.ident);
            quote!(#keyword #name)
        }),
        Item::Enum(e) => ("an enum", {
            let (keyword, name) = (&e.enum_token, &e.ident);
            quote!(#keyword #name)
        }),
        Item::ExternCrate(e) => ("an `extern crate` declaration", {
            let (keyword, name) = (&e.crate_token, &e.ident);
            quote!(#keyword #name)
        }),
        Item::ForeignMod(f) => ("an `extern` block", {
            let keyword = &f.abi.extern_token;
            quote!(#keyword)
        }),
        Item::Impl(i) => ("an impl block", {
            let (keyword, self_ty) = (&i.impl_token, &i.self_ty);
            quote!(#keyword #self_ty)
        }),
        Item::Macro(m) => ("a macro invocation", {
            let path = &m.mac.path;
            quote!(#path)
        }),
        Item::Mod(m) => ("a module", {
            let (keyword, name) = (&m.mod_token, &m.ident);
            quote!(#keyword #name)
        }),
        Item::Static(s) => ("a static", {
            let (keyword, name) = (&s.static_token, &s.ident);
            quote!(#keyword #name)
        }),
        Item::Struct(s) => ("a struct", {
            let (keyword, name) = (&s.struct_token, &s.ident);
            quote!(#keyword #name)
        }),
        Item::Trait(t) => ("a trait", {
            let (keyword, name) = (&t.trait_token, &t.ident);
            quote!(#keyword #name)
        }),
        Item::TraitAlias(t) => ("a trait alias", {
            let (keyword, name) = (&t.trait_token, &t.ident);
            quote!(#keyword #name)
        }),
        Item::Type(t) => ("a type alias", {
            let (keyword, name) = (&t.type_token, &t.ident);
            quote!(#keyword #name)
        }),
        Item::Union(u) => ("a union", {
            let (keyword, name) = (&u.union_token, &u.ident);
            quote!(#keyword #name)
        }),
        Item::Use(u) => ("a `use` declaration", {
            let keyword = &u.use_token;
            quote!(#keyword)
        }),
        _ => return (None, None),
    };
    (Some(kind), Some(head))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(item: TokenStream) -> Vec<String> {
        match parse_annotated_fn("free", item) {
            Ok(function) => function.param_names(),
            Err(error) => panic!("not read as a function: {error}"),
        }
    }

    fn rejection(item: TokenStream) -> String {
        match parse_annotated_fn("free", item) {
            Ok(function) => panic!("`{}` was read as a function", function.name),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn reads_the_name_and_plain_parameters_of_a_free_function() {
        let function = parse_annotated_fn(
            "free",
            quote!(
                pub(crate) unsafe fn release(pool: &mut Pool, buf: Buf) {
                    pool.put(buf)
                }
            ),
        )
        .expect("a function");
        assert_eq!(function.name, "release");
        assert_eq!(function.param_names(), ["pool", "buf"]);
        assert!(!function.returns_value);
    }

    #[test]
    fn lists_self_first_for_methods() {
        assert_eq!(
            names(quote!(
                fn give_back(&mut self, slot: usize) {}
            )),
            ["self", "slot"]
        );
        assert_eq!(
            names(quote!(
                fn into_raw(self: Box<Self>) -> *mut u8 {
                    todo!()
                }
            )),
            ["self"]
        );
    }

    #[test]
    fn collects_every_name_a_destructuring_parameter_binds() {
        let bound = names(quote!(
            fn split(
                (left, mut right): (A, B),
                Pair { a, b: ref renamed }: Pair,
                &[first, ..]: &[u8],
                _: u8,
            ) {
            }
        ));
        assert_eq!(bound, ["left", "right", "a", "renamed", "first"]);
    }

    #[test]
    fn accepts_declarations_without_a_body() {
        assert_eq!(
            names(quote!(
                fn dealloc(&mut self, ptr: *mut u8);
            )),
            ["self", "ptr"]
        );
        assert_eq!(
            names(quote!(
                fn free(p: *mut c_void, ...);
            )),
            ["p"]
        );
    }

    #[test]
    fn unit_return_types_return_no_value() {
        let unit = parse_annotated_fn(
            "view",
            quote!(
                fn f(x: &X) -> () {}
            ),
        )
        .expect("a function");
        assert!(!unit.returns_value);
        let value = parse_annotated_fn(
            "view",
            quote!(
                fn f(x: &X) -> &X {
                    x
                }
            ),
        )
        .expect("a function");
        assert!(value.returns_value);
    }

    #[test]
    fn names_the_kind_of_a_non_function_item() {
        assert_eq!(
            rejection(quote!(
                struct Pool {
                    slots: Vec<u8>,
                }
            )),
            "`#[tensor_lint::free]` can only be applied to functions, not to a struct"
        );
        assert_eq!(
            rejection(quote!(impl Pool { fn f(&self) {} })),
            "`#[tensor_lint::free]` can only be applied to functions, not to an impl block"
        );
        assert_eq!(
            rejection(quote!(
                const N: usize = 4;
            )),
            "`#[tensor_lint::free]` can only be applied to functions, not to a constant"
        );
        assert_eq!(
            rejection(quote!(
                mod kernels {}
            )),
            "`#[tensor_lint::free]` can only be applied to functions, not to a module"
        );
    }

    #[test]
    fn an_unreadable_item_is_still_rejected_with_a_message() {
        assert_eq!(
            rejection(quote!(+ + +)),
            "`#[tensor_lint::free]` can only be applied to functions"
        );
        assert_eq!(
            rejection(TokenStream::new()),
            "`#[tensor_lint::free]` can only be applied to functions"
        );
    }
}
