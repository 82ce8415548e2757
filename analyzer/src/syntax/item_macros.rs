//! Items written inside macro invocations at item position, spliced in place of the
//! invocation so that module loading, the index and the lowering see them.
//!
//! Crates often wrap whole groups of items in a macro: tokio's `cfg_rt! { mod runtime; }`,
//! `cfg_if! { if #[cfg(unix)] { mod unix; } else { mod other; } }`, std's
//! `cfg_select! { unix => { .. } _ => { .. } }`. Without expansion, every `mod` in them is
//! never opened and every function in them never checked. Macros are not run: an
//! invocation whose body parses as items is taken as those items (what wrappers of this
//! kind expand to); `cfg_if!` and `cfg_select!` branches become items under the branch's
//! `#[cfg]` condition, so the alternatives stay told apart. Any other body (a DSL such as
//! `bitflags!`) is left as an opaque invocation. The spliced tokens keep their spans in
//! the file.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use syn::parse::{ParseStream, Parser};

/// How deep invocations nest inside spliced bodies before the rest is left alone.
const MAX_DEPTH: u32 = 16;

/// Replaces, in `items` and in the inline modules among them, every item-position macro
/// invocation whose body reads as items with those items.
pub fn splice_item_macros(items: &mut Vec<syn::Item>) {
    splice_at(items, 0);
}

fn splice_at(items: &mut Vec<syn::Item>, depth: u32) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut out = Vec::with_capacity(items.len());
    for item in std::mem::take(items) {
        match item {
            syn::Item::Macro(m) if m.ident.is_none() => match body_items(&m.mac) {
                Some(mut inner) => {
                    splice_at(&mut inner, depth + 1);
                    out.extend(inner);
                }
                None => out.push(syn::Item::Macro(m)),
            },
            syn::Item::Mod(mut m) => {
                if let Some((_, inner)) = &mut m.content {
                    splice_at(inner, depth + 1);
                }
                out.push(syn::Item::Mod(m));
            }
            other => out.push(other),
        }
    }
    *items = out;
}

/// The items an invocation stands for, when its body reads as items.
fn body_items(mac: &syn::Macro) -> Option<Vec<syn::Item>> {
    let name = mac.path.segments.last()?.ident.to_string();
    if name == "macro_rules" {
        return None;
    }
    let tokens = mac.tokens.clone();
    if let Ok(branches) = cfg_if_branches.parse2(tokens.clone()) {
        return Some(branches);
    }
    if let Ok(branches) = cfg_select_arms.parse2(tokens.clone()) {
        return Some(branches);
    }
    items.parse2(tokens).ok().filter(|items| !items.is_empty())
}

fn items(input: ParseStream<'_>) -> syn::Result<Vec<syn::Item>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        out.push(input.parse()?);
    }
    Ok(out)
}

/// `if #[cfg(a)] { .. } else if #[cfg(b)] { .. } else { .. }`: each branch's items
/// under `cfg(all(not(earlier)..., this))`.
fn cfg_if_branches(input: ParseStream<'_>) -> syn::Result<Vec<syn::Item>> {
    let mut out = Vec::new();
    let mut earlier: Vec<TokenStream> = Vec::new();
    loop {
        let condition = if input.peek(syn::Token![if]) {
            let _: syn::Token![if] = input.parse()?;
            let attrs = input.call(syn::Attribute::parse_outer)?;
            let [attr] = attrs.as_slice() else {
                return Err(input.error("expected one `#[cfg(..)]`"));
            };
            if !attr.path().is_ident("cfg") {
                return Err(input.error("expected `#[cfg(..)]`"));
            }
            Some(attr.parse_args::<TokenStream>()?)
        } else {
            None
        };
        let content;
        syn::braced!(content in input);
        let branch = items(&content)?;
        out.extend(under_cfg(branch, &earlier, condition.as_ref()));
        match condition {
            Some(c) => earlier.push(c),
            None => break,
        }
        if input.is_empty() {
            break;
        }
        let _: syn::Token![else] = input.parse()?;
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the last branch"));
    }
    Ok(out)
}

/// `pred => { .. } pred => { .. } _ => { .. }`: each arm's items under its predicate
/// and the negation of the earlier ones.
fn cfg_select_arms(input: ParseStream<'_>) -> syn::Result<Vec<syn::Item>> {
    let mut out = Vec::new();
    let mut earlier: Vec<TokenStream> = Vec::new();
    let mut arms = 0;
    while !input.is_empty() {
        let mut predicate = TokenStream::new();
        while !input.peek(syn::Token![=>]) {
            let t: TokenTree = input.parse()?;
            predicate.extend([t]);
        }
        let _: syn::Token![=>] = input.parse()?;
        let content;
        syn::braced!(content in input);
        let branch = items(&content)?;
        let wildcard = predicate.to_string() == "_";
        let condition = (!wildcard).then_some(predicate);
        out.extend(under_cfg(branch, &earlier, condition.as_ref()));
        if let Some(c) = condition {
            earlier.push(c);
        }
        let _ = input.parse::<Option<syn::Token![,]>>()?;
        arms += 1;
    }
    if arms == 0 {
        return Err(input.error("no arms"));
    }
    Ok(out)
}

/// `items`, each with `#[cfg(all(not(e1), not(e2), .., this))]` added.
fn under_cfg(
    items: Vec<syn::Item>,
    earlier: &[TokenStream],
    this: Option<&TokenStream>,
) -> Vec<syn::Item> {
    let mut parts: Vec<TokenStream> = earlier.iter().map(|e| quote!(not(#e))).collect();
    parts.extend(this.cloned());
    if parts.is_empty() {
        return items;
    }
    let attr: syn::Attribute = syn::parse_quote!(#[cfg(all(#(#parts),*))]);
    items
        .into_iter()
        .map(|mut item| {
            if let Some(attrs) = item_attrs(&mut item) {
                attrs.insert(0, attr.clone());
            }
            item
        })
        .collect()
}

fn item_attrs(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    Some(match item {
        syn::Item::Const(i) => &mut i.attrs,
        syn::Item::Enum(i) => &mut i.attrs,
        syn::Item::ExternCrate(i) => &mut i.attrs,
        syn::Item::Fn(i) => &mut i.attrs,
        syn::Item::ForeignMod(i) => &mut i.attrs,
        syn::Item::Impl(i) => &mut i.attrs,
        syn::Item::Macro(i) => &mut i.attrs,
        syn::Item::Mod(i) => &mut i.attrs,
        syn::Item::Static(i) => &mut i.attrs,
        syn::Item::Struct(i) => &mut i.attrs,
        syn::Item::Trait(i) => &mut i.attrs,
        syn::Item::TraitAlias(i) => &mut i.attrs,
        syn::Item::Type(i) => &mut i.attrs,
        syn::Item::Union(i) => &mut i.attrs,
        syn::Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spliced(text: &str) -> Vec<String> {
        let mut file = syn::parse_file(text).expect("parses");
        splice_item_macros(&mut file.items);
        file.items.iter().map(|i| quote!(#i).to_string()).collect()
    }

    #[test]
    fn wrapper_macro_bodies_become_items() {
        let items = spliced("cfg_rt! { mod runtime; pub fn spawn() {} } fn after() {}");
        assert_eq!(items.len(), 3, "{items:?}");
        assert!(items[0].starts_with("mod runtime"));
        assert!(items[2].starts_with("fn after"));
    }

    #[test]
    fn cfg_if_branches_are_alternatives_under_their_conditions() {
        let items = spliced(
            "cfg_if::cfg_if! { if #[cfg(unix)] { mod unix; } else if #[cfg(windows)] { mod win; } else { mod other; } }",
        );
        assert_eq!(items.len(), 3, "{items:?}");
        assert!(items[0].contains("cfg (all (unix))"), "{}", items[0]);
        assert!(items[1].contains("not (unix)") && items[1].contains("windows"));
        assert!(items[2].contains("not (unix)") && items[2].contains("not (windows)"));
    }

    #[test]
    fn cfg_select_arms_are_alternatives() {
        let items = spliced("cfg_select! { unix => { mod a; } _ => { mod b; } }");
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(items[1].contains("not (unix)"), "{}", items[1]);
    }

    #[test]
    fn definitions_and_non_item_bodies_stay_invocations() {
        let items = spliced(
            "macro_rules! m { () => {} } bitflags! { struct F: u32 { const A = 1; } } m!();",
        );
        assert_eq!(items.len(), 3);
        assert!(items.iter().all(|i| i.contains('!')), "{items:?}");
    }
}
