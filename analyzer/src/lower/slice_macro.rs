//! The grammar of ndarray's `s![]`: comma-separated axis entries, each an index
//! expression, a range `start..end` / `start..=end` / `..` with an optional `;step`
//! (negative steps included), or `NewAxis`.

use syn::parse::{Parse, ParseStream};

/// One entry of `s![...]`, still as syntax (its expressions are lowered by the caller,
/// which knows the bindings).
#[derive(Debug)]
pub enum SliceEntry {
    Range {
        start: Option<Box<syn::Expr>>,
        end: Option<Box<syn::Expr>>,
        inclusive: bool,
        step: Option<Box<syn::Expr>>,
    },
    Index(Box<syn::Expr>),
    NewAxis,
}

/// All entries of one `s![...]`.
#[derive(Debug)]
pub struct SliceArgs(pub Vec<SliceEntry>);

impl Parse for SliceArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            let e: syn::Expr = input.parse()?;
            let step = if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                Some(Box::new(input.parse::<syn::Expr>()?))
            } else {
                None
            };
            out.push(entry(e, step));
            if input.is_empty() {
                break;
            }
            let _: syn::Token![,] = input.parse()?;
        }
        Ok(SliceArgs(out))
    }
}

fn entry(e: syn::Expr, step: Option<Box<syn::Expr>>) -> SliceEntry {
    match e {
        syn::Expr::Range(r) => SliceEntry::Range {
            start: r.start,
            end: r.end,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            step,
        },
        syn::Expr::Path(p)
            if p.path
                .segments
                .last()
                .is_some_and(|s| s.ident == crate::models::table::NEW_AXIS) =>
        {
            SliceEntry::NewAxis
        }
        // `s![i;2]` is not valid ndarray; the index is kept and the step ignored.
        other => SliceEntry::Index(Box::new(other)),
    }
}

/// Parses the tokens of an `s![...]` invocation.
pub fn parse_slice_macro(tokens: proc_macro2::TokenStream) -> Option<SliceArgs> {
    syn::parse2(tokens).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Vec<SliceEntry> {
        parse_slice_macro(s.parse().expect("tokens"))
            .expect("valid s![]")
            .0
    }

    #[test]
    fn ranges_steps_indices_and_new_axes_parse() {
        let got = parse("1..4;2, .., i, NewAxis, ..=3;-1");
        assert_eq!(got.len(), 5);
        assert!(matches!(
            &got[0],
            SliceEntry::Range {
                start: Some(_),
                end: Some(_),
                step: Some(_),
                inclusive: false
            }
        ));
        assert!(matches!(
            &got[1],
            SliceEntry::Range {
                start: None,
                end: None,
                step: None,
                ..
            }
        ));
        assert!(matches!(&got[2], SliceEntry::Index(_)));
        assert!(matches!(&got[3], SliceEntry::NewAxis));
        assert!(matches!(
            &got[4],
            SliceEntry::Range {
                start: None,
                inclusive: true,
                step: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn malformed_slice_is_rejected_not_panicking() {
        assert!(parse_slice_macro("1..;;".parse().expect("tokens")).is_none());
    }
}
