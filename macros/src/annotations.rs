//! The argument checks of each annotation, over `proc_macro2` tokens so unit tests can
//! call them. Each returns `Ok(())` when the annotation is well formed; the macro then
//! emits the item unchanged.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Lit, Token};

use crate::annotated_fn::{parse_annotated_fn, AnnotatedFn};
use crate::assume::check_conditions;
use crate::error_list::ErrorList;
use crate::lint_name::check_lint_list;
use crate::similar_name::closest;

type Arguments = Punctuated<Expr, Token![,]>;

fn parse_arguments(args: TokenStream) -> syn::Result<Arguments> {
    Arguments::parse_terminated.parse2(args)
}

/// `#[tensor_lint::kernel]` or `#[tensor_lint::kernel(assume(COND, …))]`.
pub(crate) fn check_kernel(args: TokenStream, item: TokenStream) -> syn::Result<()> {
    parse_annotated_fn("kernel", item)?;
    let mut seen_assume = false;
    let mut errors = ErrorList::default();
    for argument in parse_arguments(args)? {
        let result = match &argument {
            Expr::Call(call) => match argument_key(&call.func) {
                Some(key) if key == "assume" => {
                    if seen_assume {
                        Err(syn::Error::new_spanned(
                            &call.func,
                            "duplicate argument `assume`, put every condition in one list",
                        ))
                    } else if call.args.is_empty() {
                        Err(syn::Error::new_spanned(
                            &argument,
                            "`assume` needs at least one condition, such as `assume(n >= 1)`",
                        ))
                    } else {
                        seen_assume = true;
                        check_conditions(&call.args)
                    }
                }
                Some(key) => Err(unknown_argument(key, &["assume"])),
                None => Err(expected_assume(&argument)),
            },
            Expr::Path(_) | Expr::Assign(_) => match argument_key(&argument) {
                Some(key) if key == "assume" => Err(syn::Error::new_spanned(
                    &argument,
                    "`assume` takes its conditions in parentheses: `assume(n >= 1)`",
                )),
                Some(key) => Err(unknown_argument(key, &["assume"])),
                None => Err(expected_assume(&argument)),
            },
            _ => Err(expected_assume(&argument)),
        };
        if let Err(error) = result {
            errors.push(error);
        }
    }
    errors.finish(())
}

fn expected_assume(argument: &Expr) -> syn::Error {
    let message = if matches!(argument, Expr::Binary(_)) {
        "conditions go inside `assume(...)`: `#[tensor_lint::kernel(assume(n >= 1))]`"
    } else {
        "expected `assume(...)`"
    };
    syn::Error::new_spanned(argument, message)
}

/// `#[tensor_lint::alloc]`: no arguments, and a function that returns something.
pub(crate) fn check_alloc(args: TokenStream, item: TokenStream) -> syn::Result<()> {
    let function = parse_annotated_fn("alloc", item)?;
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "`#[tensor_lint::alloc]` takes no arguments",
        ));
    }
    if !function.returns_value {
        return Err(syn::Error::new_spanned(
            &function.name,
            format!(
                "`{}` returns nothing, but `#[tensor_lint::alloc]` says it returns new memory",
                function.name
            ),
        ));
    }
    Ok(())
}

/// `#[tensor_lint::free(ARG)]`: exactly one parameter of the function.
pub(crate) fn check_free(args: TokenStream, item: TokenStream) -> syn::Result<()> {
    let function = parse_annotated_fn("free", item)?;
    let arguments = parse_arguments(args)?;
    let mut arguments = arguments.iter();
    let Some(first) = arguments.next() else {
        return Err(syn::Error::new(
            Span::call_site(),
            "`#[tensor_lint::free]` needs the parameter it releases: `#[tensor_lint::free(ARG)]`",
        ));
    };
    check_param("free", &function, first)?;
    if let Some(extra) = arguments.next() {
        let shown = parameter_name(extra).unwrap_or_else(|| "ARG".to_string());
        return Err(syn::Error::new_spanned(
            extra,
            format!(
                "`#[tensor_lint::free]` takes one parameter, \
                 add `#[tensor_lint::free({shown})]` to release another"
            ),
        ));
    }
    Ok(())
}

/// `#[tensor_lint::view(of = ARG)]`: the returned value aliases one parameter.
pub(crate) fn check_view(args: TokenStream, item: TokenStream) -> syn::Result<()> {
    let function = parse_annotated_fn("view", item)?;
    let arguments = parse_arguments(args)?;
    if arguments.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            "`#[tensor_lint::view]` needs `of = ARG`, the parameter whose memory it returns",
        ));
    }
    let mut seen_of = false;
    let mut errors = ErrorList::default();
    for argument in &arguments {
        let result = match argument {
            Expr::Assign(assign) => match argument_key(&assign.left) {
                Some(key) if key == "of" && seen_of => Err(syn::Error::new_spanned(
                    key,
                    "duplicate argument `of`, a view aliases one parameter",
                )),
                Some(key) if key == "of" => {
                    seen_of = true;
                    check_param("view", &function, &assign.right).map(drop)
                }
                Some(key) => Err(unknown_argument(key, &["of"])),
                None => Err(syn::Error::new_spanned(&assign.left, "expected `of`")),
            },
            bare => {
                let message = if seen_of {
                    "unexpected argument, `#[tensor_lint::view]` takes only `of = ARG`".to_string()
                } else if let Some(name) = parameter_name(bare) {
                    format!("expected `of = {name}`")
                } else {
                    "expected `of = ARG`".to_string()
                };
                Err(syn::Error::new_spanned(bare, message))
            }
        };
        if let Err(error) = result {
            errors.push(error);
        }
    }
    errors.finish(())?;
    if !function.returns_value {
        return Err(syn::Error::new_spanned(
            &function.name,
            format!(
                "`{}` returns nothing, but `#[tensor_lint::view]` says it returns a view",
                function.name
            ),
        ));
    }
    Ok(())
}

/// `#[tensor_lint::inplace(ARG, …)]`: one or more distinct parameters.
pub(crate) fn check_inplace(args: TokenStream, item: TokenStream) -> syn::Result<()> {
    let function = parse_annotated_fn("inplace", item)?;
    let arguments = parse_arguments(args)?;
    if arguments.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            "`#[tensor_lint::inplace]` needs the parameters it overwrites: \
             `#[tensor_lint::inplace(ARG, …)]`",
        ));
    }
    let mut listed: Vec<&Ident> = Vec::new();
    let mut errors = ErrorList::default();
    for argument in &arguments {
        match check_param("inplace", &function, argument) {
            Ok(param) if listed.contains(&param) => {
                errors.push(syn::Error::new_spanned(
                    argument,
                    format!("`{param}` is listed twice"),
                ));
            }
            Ok(param) => listed.push(param),
            Err(error) => errors.push(error),
        }
    }
    errors.finish(())
}

/// `#[tensor_lint::allow(LINT, …)]` on any item: one or more known lint names.
pub(crate) fn check_allow(args: TokenStream) -> syn::Result<()> {
    if args.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            "`#[tensor_lint::allow]` needs the lints to allow: `#[tensor_lint::allow(leak)]`",
        ));
    }
    check_lint_list(args).map(drop)
}

/// The name of an argument written `name`, `name = …` or `name(…)`.
fn argument_key(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        Expr::Assign(assign) => argument_key(&assign.left),
        _ => None,
    }
}

fn unknown_argument(key: &Ident, expected: &[&str]) -> syn::Error {
    let list = expected
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(" or ");
    syn::Error::new_spanned(key, format!("unknown argument `{key}`, expected {list}"))
}

/// A plain identifier (or `self`) written as an argument.
fn parameter_name(expr: &Expr) -> Option<String> {
    match expr {
        // A name passed through a `macro_rules!` fragment arrives in an invisible group.
        Expr::Group(group) => parameter_name(&group.expr),
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// Checks that `argument` names a parameter of `function` and returns that parameter.
fn check_param<'f>(
    annotation: &str,
    function: &'f AnnotatedFn,
    argument: &Expr,
) -> syn::Result<&'f Ident> {
    let Some(name) = parameter_name(argument) else {
        let found = match argument {
            Expr::Assign(assign) => {
                let message = match argument_key(&assign.left) {
                    Some(key) => format!(
                        "unknown argument `{key}`, `#[tensor_lint::{annotation}]` takes \
                         parameter names only"
                    ),
                    None => format!("`#[tensor_lint::{annotation}]` takes parameter names only"),
                };
                return Err(syn::Error::new_spanned(&assign.left, message));
            }
            Expr::Lit(literal) => match &literal.lit {
                Lit::Str(text) => {
                    format!(", found a string, write `{}` without quotes", text.value())
                }
                _ => ", found a literal".to_string(),
            },
            Expr::Field(field) => match parameter_name(&field.base) {
                // The analyzer tracks whole parameters; a field is released with its owner.
                Some(owner) => format!(", found a field access, write `{owner}`"),
                None => ", found a field access".to_string(),
            },
            Expr::Reference(_) => ", found a reference".to_string(),
            Expr::Call(_) | Expr::MethodCall(_) => ", found a call".to_string(),
            Expr::Path(_) => ", found a path".to_string(),
            _ => String::new(),
        };
        return Err(syn::Error::new_spanned(
            argument,
            format!(
                "expected the name of a parameter of `{}`{found}",
                function.name
            ),
        ));
    };
    if let Some(param) = function.params.iter().find(|param| **param == name) {
        return Ok(param);
    }
    let params = function.param_names();
    let candidates: Vec<&str> = params.iter().map(String::as_str).collect();
    let hint = match closest(&name, &candidates) {
        Some(suggestion) => format!(", did you mean `{suggestion}`?"),
        None if candidates.is_empty() => format!(", `{}` has no parameters", function.name),
        None => format!(
            ", expected {}",
            candidates
                .iter()
                .map(|param| format!("`{param}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(syn::Error::new_spanned(
        argument,
        format!("`{name}` is not a parameter of `{}`{hint}", function.name),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn messages(result: syn::Result<()>) -> Vec<String> {
        match result {
            Ok(()) => Vec::new(),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    fn pointed_at(result: syn::Result<()>) -> String {
        match result {
            Ok(()) => panic!("accepted"),
            Err(error) => error.span().source_text().unwrap_or_default(),
        }
    }

    fn checkout() -> TokenStream {
        quote!(
            fn checkout(&mut self, p: usize, len: usize) -> Buf {
                todo!()
            }
        )
    }

    #[test]
    fn kernel_accepts_no_arguments_and_an_assume_list() {
        let item = quote!(
            fn gemm(n: usize) {}
        );
        assert!(check_kernel(TokenStream::new(), item.clone()).is_ok());
        assert!(check_kernel(quote!(assume(N >= 1, N % 16 == 0)), item.clone()).is_ok());
        assert!(check_kernel(quote!(assume(n > 0,),), item).is_ok());
    }

    #[test]
    fn kernel_rejects_a_misspelt_argument_name() {
        let result = check_kernel(
            quote!(asume(n >= 1)),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(
            messages(result),
            ["unknown argument `asume`, expected `assume`"]
        );
        let result = check_kernel(
            quote!(hot),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(
            messages(result),
            ["unknown argument `hot`, expected `assume`"]
        );
    }

    #[test]
    fn kernel_rejects_assume_without_a_list_or_with_an_empty_one() {
        let item = quote!(
            fn f() {}
        );
        assert_eq!(
            messages(check_kernel(quote!(assume()), item.clone())),
            ["`assume` needs at least one condition, such as `assume(n >= 1)`"]
        );
        assert_eq!(
            messages(check_kernel(quote!(assume), item.clone())),
            ["`assume` takes its conditions in parentheses: `assume(n >= 1)`"]
        );
        assert_eq!(
            messages(check_kernel(quote!(assume = "n >= 1"), item)),
            ["`assume` takes its conditions in parentheses: `assume(n >= 1)`"]
        );
    }

    #[test]
    fn kernel_points_a_bare_condition_into_assume() {
        assert_eq!(
            messages(check_kernel(
                quote!(n >= 1),
                quote!(
                    fn f() {}
                )
            )),
            ["conditions go inside `assume(...)`: `#[tensor_lint::kernel(assume(n >= 1))]`"]
        );
        assert_eq!(
            messages(check_kernel(
                quote!("fast"),
                quote!(
                    fn f() {}
                )
            )),
            ["expected `assume(...)`"]
        );
    }

    #[test]
    fn kernel_rejects_a_second_assume_list() {
        let result = check_kernel(
            quote!(assume(n >= 1), assume(n < 8)),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(
            messages(result),
            ["duplicate argument `assume`, put every condition in one list"]
        );
    }

    #[test]
    fn kernel_reports_each_malformed_condition() {
        let result = check_kernel(
            quote!(assume(n > 0.5, len(x) > 1, n >= 1)),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(messages(result).len(), 2);
    }

    #[test]
    fn function_annotations_reject_other_items() {
        let strukt = quote!(
            struct Pool {
                slots: Vec<u8>,
            }
        );
        for (annotation, result) in [
            ("kernel", check_kernel(TokenStream::new(), strukt.clone())),
            ("alloc", check_alloc(TokenStream::new(), strukt.clone())),
            ("free", check_free(quote!(slots), strukt.clone())),
            ("view", check_view(quote!(of = slots), strukt.clone())),
            ("inplace", check_inplace(quote!(slots), strukt.clone())),
        ] {
            assert_eq!(
                messages(result),
                [format!(
                    "`#[tensor_lint::{annotation}]` can only be applied to functions, not to a struct"
                )]
            );
        }
    }

    #[test]
    fn alloc_rejects_arguments_and_functions_returning_nothing() {
        assert!(check_alloc(TokenStream::new(), checkout()).is_ok());
        assert_eq!(
            messages(check_alloc(quote!(pool), checkout())),
            ["`#[tensor_lint::alloc]` takes no arguments"]
        );
        assert_eq!(
            messages(check_alloc(
                TokenStream::new(),
                quote!(
                    fn make(n: usize) {}
                )
            )),
            ["`make` returns nothing, but `#[tensor_lint::alloc]` says it returns new memory"]
        );
    }

    #[test]
    fn free_accepts_a_parameter_or_self() {
        assert!(check_free(quote!(p), checkout()).is_ok());
        assert!(check_free(quote!(self), checkout()).is_ok());
    }

    #[test]
    fn free_suggests_a_close_parameter_name() {
        let result = check_free(quote!(lem), checkout());
        assert_eq!(
            messages(result),
            ["`lem` is not a parameter of `checkout`, did you mean `len`?"]
        );
    }

    #[test]
    fn free_lists_the_parameters_when_none_is_close() {
        assert_eq!(
            messages(check_free(quote!(q), checkout())),
            ["`q` is not a parameter of `checkout`, expected `self`, `p`, `len`"]
        );
        assert_eq!(
            messages(check_free(
                quote!(buf),
                quote!(
                    fn reset() {}
                )
            )),
            ["`buf` is not a parameter of `reset`, `reset` has no parameters"]
        );
    }

    #[test]
    fn free_rejects_self_in_a_function_without_a_receiver() {
        let result = check_free(
            quote!(self),
            quote!(
                fn release(buf: Buf) {}
            ),
        );
        assert_eq!(
            messages(result),
            ["`self` is not a parameter of `release`, expected `buf`"]
        );
    }

    #[test]
    fn free_takes_exactly_one_parameter() {
        assert_eq!(
            messages(check_free(TokenStream::new(), checkout())),
            ["`#[tensor_lint::free]` needs the parameter it releases: `#[tensor_lint::free(ARG)]`"]
        );
        assert_eq!(
            messages(check_free(quote!(p, len), checkout())),
            ["`#[tensor_lint::free]` takes one parameter, \
              add `#[tensor_lint::free(len)]` to release another"]
        );
    }

    #[test]
    fn free_rejects_named_arguments_and_non_names() {
        assert_eq!(
            messages(check_free(quote!(of = p), checkout())),
            ["unknown argument `of`, `#[tensor_lint::free]` takes parameter names only"]
        );
        assert_eq!(
            messages(check_free(quote!("p"), checkout())),
            ["expected the name of a parameter of `checkout`, found a string, write `p` without quotes"]
        );
        assert_eq!(
            messages(check_free(quote!(self.buf), checkout())),
            ["expected the name of a parameter of `checkout`, found a field access, write `self`"]
        );
        assert_eq!(
            messages(check_free(quote!(&p), checkout())),
            ["expected the name of a parameter of `checkout`, found a reference"]
        );
    }

    #[test]
    fn view_accepts_of_a_parameter() {
        let item = quote!(
            fn row(data: &[f32], r: usize) -> &[f32] {
                data
            }
        );
        assert!(check_view(quote!(of = data), item).is_ok());
    }

    #[test]
    fn view_rejects_unknown_missing_and_extra_arguments() {
        let item = quote!(
            fn row(data: &[f32], r: usize) -> &[f32] {
                data
            }
        );
        assert_eq!(
            messages(check_view(quote!(off = data), item.clone())),
            ["unknown argument `off`, expected `of`"]
        );
        assert_eq!(
            messages(check_view(quote!(data), item.clone())),
            ["expected `of = data`"]
        );
        assert_eq!(
            messages(check_view(TokenStream::new(), item.clone())),
            ["`#[tensor_lint::view]` needs `of = ARG`, the parameter whose memory it returns"]
        );
        assert_eq!(
            messages(check_view(quote!(of = data, of = r), item.clone())),
            ["duplicate argument `of`, a view aliases one parameter"]
        );
        assert_eq!(
            messages(check_view(quote!(of = data, r), item.clone())),
            ["unexpected argument, `#[tensor_lint::view]` takes only `of = ARG`"]
        );
        assert_eq!(
            messages(check_view(quote!(of = dat), item)),
            ["`dat` is not a parameter of `row`, did you mean `data`?"]
        );
    }

    #[test]
    fn view_rejects_a_function_returning_nothing() {
        assert_eq!(
            messages(check_view(
                quote!(of = x),
                quote!(
                    fn touch(x: &[f32]) {}
                )
            )),
            ["`touch` returns nothing, but `#[tensor_lint::view]` says it returns a view"]
        );
    }

    #[test]
    fn inplace_accepts_one_or_more_distinct_parameters() {
        let item = quote!(
            fn swap(a: &mut [f32], b: &mut [f32]) {}
        );
        assert!(check_inplace(quote!(a), item.clone()).is_ok());
        assert!(check_inplace(quote!(a, b), item.clone()).is_ok());
        assert_eq!(
            messages(check_inplace(quote!(a, a), item.clone())),
            ["`a` is listed twice"]
        );
        assert_eq!(
            messages(check_inplace(TokenStream::new(), item)),
            [
                "`#[tensor_lint::inplace]` needs the parameters it overwrites: \
              `#[tensor_lint::inplace(ARG, …)]`"
            ]
        );
    }

    #[test]
    fn inplace_reports_every_missing_parameter() {
        let item = quote!(
            fn swap(a: &mut [f32], b: &mut [f32]) {}
        );
        assert_eq!(
            messages(check_inplace(quote!(x, b, bb), item)),
            [
                "`x` is not a parameter of `swap`, expected `a`, `b`",
                "`bb` is not a parameter of `swap`, did you mean `b`?",
            ]
        );
    }

    #[test]
    fn allow_requires_at_least_one_lint() {
        assert!(check_allow(quote!(leak, tensor_lint::alias_race)).is_ok());
        assert_eq!(
            messages(check_allow(TokenStream::new())),
            ["`#[tensor_lint::allow]` needs the lints to allow: `#[tensor_lint::allow(leak)]`"]
        );
    }

    #[test]
    fn errors_point_at_the_offending_tokens() {
        let args: TokenStream = match "asume(n >= 1)".parse() {
            Ok(tokens) => tokens,
            Err(error) => panic!("{error}"),
        };
        assert_eq!(
            pointed_at(check_kernel(
                args,
                quote!(
                    fn f() {}
                )
            )),
            "asume"
        );
        let args: TokenStream = match "of = dat".parse() {
            Ok(tokens) => tokens,
            Err(error) => panic!("{error}"),
        };
        let item = quote!(
            fn row(data: &[f32]) -> &[f32] {
                data
            }
        );
        assert_eq!(pointed_at(check_view(args, item)), "dat");
    }
}
