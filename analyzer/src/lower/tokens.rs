//! The first and last tokens of an expression, from which its span is made without
//! walking the whole expression.

/// The first token of an expression, looking down the left spine a bounded distance.
pub(crate) fn first_token(e: &syn::Expr, depth: u32) -> proc_macro2::Span {
    if depth > 32 {
        return last_token(e);
    }
    let d = depth + 1;
    match e {
        syn::Expr::MethodCall(m) => first_token(&m.receiver, d),
        syn::Expr::Call(c) => first_token(&c.func, d),
        syn::Expr::Binary(b) => first_token(&b.left, d),
        syn::Expr::Assign(a) => first_token(&a.left, d),
        syn::Expr::Index(i) => first_token(&i.expr, d),
        syn::Expr::Field(f) => first_token(&f.base, d),
        syn::Expr::Try(t) => first_token(&t.expr, d),
        syn::Expr::Cast(c) => first_token(&c.expr, d),
        syn::Expr::Await(a) => first_token(&a.base, d),
        syn::Expr::Range(r) => match &r.start {
            Some(s) => first_token(s, d),
            None => last_token(e),
        },
        syn::Expr::Path(p) => p
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Lit(l) => l.lit.span(),
        syn::Expr::Unary(u) => match u.op {
            syn::UnOp::Deref(t) => t.span,
            syn::UnOp::Not(t) => t.span,
            syn::UnOp::Neg(t) => t.span,
            _ => first_token(&u.expr, d),
        },
        syn::Expr::Reference(r) => r.and_token.span,
        syn::Expr::Paren(p) => p.paren_token.span.open(),
        syn::Expr::Tuple(t) => t.paren_token.span.open(),
        syn::Expr::Array(a) => a.bracket_token.span.open(),
        syn::Expr::Block(b) => b.block.brace_token.span.open(),
        syn::Expr::Unsafe(u) => u.unsafe_token.span,
        syn::Expr::If(i) => i.if_token.span,
        syn::Expr::Match(m) => m.match_token.span,
        syn::Expr::ForLoop(f) => f.for_token.span,
        syn::Expr::While(w) => w.while_token.span,
        syn::Expr::Loop(l) => l.loop_token.span,
        syn::Expr::Return(r) => r.return_token.span,
        syn::Expr::Break(b) => b.break_token.span,
        syn::Expr::Continue(c) => c.continue_token.span,
        syn::Expr::Closure(c) => c.or1_token.span,
        syn::Expr::Macro(m) => m
            .mac
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Struct(s) => s
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Let(l) => l.let_token.span,
        _ => last_token(e),
    }
}

/// The last token of an expression (its closing delimiter, method name or operand).
pub(crate) fn last_token(e: &syn::Expr) -> proc_macro2::Span {
    match e {
        syn::Expr::MethodCall(m) => m.paren_token.span.close(),
        syn::Expr::Call(c) => c.paren_token.span.close(),
        syn::Expr::Index(i) => i.bracket_token.span.close(),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => n.span(),
            syn::Member::Unnamed(i) => i.span,
        },
        syn::Expr::Try(t) => t.question_token.span,
        syn::Expr::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Lit(l) => l.lit.span(),
        syn::Expr::Paren(p) => p.paren_token.span.close(),
        syn::Expr::Tuple(t) => t.paren_token.span.close(),
        syn::Expr::Array(a) => a.bracket_token.span.close(),
        syn::Expr::Block(b) => b.block.brace_token.span.close(),
        syn::Expr::Unsafe(u) => u.block.brace_token.span.close(),
        syn::Expr::If(i) => match &i.else_branch {
            Some((_, e)) => last_token_shallow(e),
            None => i.then_branch.brace_token.span.close(),
        },
        syn::Expr::Match(m) => m.brace_token.span.close(),
        syn::Expr::ForLoop(f) => f.body.brace_token.span.close(),
        syn::Expr::While(w) => w.body.brace_token.span.close(),
        syn::Expr::Loop(l) => l.body.brace_token.span.close(),
        syn::Expr::Macro(m) => match &m.mac.delimiter {
            syn::MacroDelimiter::Paren(p) => p.span.close(),
            syn::MacroDelimiter::Brace(b) => b.span.close(),
            syn::MacroDelimiter::Bracket(b) => b.span.close(),
        },
        syn::Expr::Struct(s) => s.brace_token.span.close(),
        syn::Expr::Repeat(r) => r.bracket_token.span.close(),
        syn::Expr::Binary(b) => last_token_shallow(&b.right),
        syn::Expr::Assign(a) => last_token_shallow(&a.right),
        syn::Expr::Unary(u) => last_token_shallow(&u.expr),
        syn::Expr::Reference(r) => last_token_shallow(&r.expr),
        syn::Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or(c.as_token.span, |s| s.ident.span()),
            _ => c.as_token.span,
        },
        syn::Expr::Return(r) => r.return_token.span,
        syn::Expr::Break(b) => b.break_token.span,
        syn::Expr::Continue(c) => c.continue_token.span,
        syn::Expr::Closure(c) => c.or2_token.span,
        syn::Expr::Range(r) => match &r.end {
            Some(e) => last_token_shallow(e),
            None => match r.limits {
                syn::RangeLimits::HalfOpen(t) => t.spans[1],
                syn::RangeLimits::Closed(t) => t.spans[2],
            },
        },
        syn::Expr::Await(a) => a.await_token.span,
        syn::Expr::Let(l) => last_token_shallow(&l.expr),
        _ => proc_macro2::Span::call_site(),
    }
}

/// `last_token` one level down, without recursing further (operands of operands keep
/// the span to the operator's right operand's own last token).
pub(crate) fn last_token_shallow(e: &syn::Expr) -> proc_macro2::Span {
    match e {
        syn::Expr::Binary(b) => match &*b.right {
            syn::Expr::Binary(_) | syn::Expr::Assign(_) => proc_macro2::Span::call_site(),
            syn::Expr::Unary(syn::ExprUnary { expr, .. })
            | syn::Expr::Reference(syn::ExprReference { expr, .. }) => last_token_leaf(expr),
            r => last_token(r),
        },
        syn::Expr::Unary(syn::ExprUnary { expr, .. })
        | syn::Expr::Reference(syn::ExprReference { expr, .. }) => last_token_leaf(expr),
        syn::Expr::Assign(_) | syn::Expr::Let(_) | syn::Expr::If(_) => {
            proc_macro2::Span::call_site()
        }
        other => last_token(other),
    }
}

/// The last token of the operand of `&x` / `*x` / `-x` (`&a.t()` in `b += &a.t()`),
/// without recursing into further operators.
pub(crate) fn last_token_leaf(e: &syn::Expr) -> proc_macro2::Span {
    match e {
        syn::Expr::Binary(_)
        | syn::Expr::Assign(_)
        | syn::Expr::Unary(_)
        | syn::Expr::Reference(_)
        | syn::Expr::Let(_)
        | syn::Expr::If(_) => proc_macro2::Span::call_site(),
        other => last_token(other),
    }
}
