#[tensor_lint::allow(leek)]
fn typo() {}

#[tensor_lint::allow(tensor_lint::alias_rase, false_sharing)]
fn prefixed_typo() {}

#[tensor_lint::allow(use-after-free)]
fn dashes() {}

#[tensor_lint::allow(warnings)]
fn unrelated() {}

#[tensor_lint::allow(clippy::needless_range_loop)]
fn other_tool() {}

#[tensor_lint::allow("leak")]
fn quoted() {}

#[tensor_lint::allow(leak, leak)]
fn twice() {}

#[tensor_lint::allow]
fn empty() {}

fn main() {}
