//! Applying a [`ViewOp`] to an oracle [`View`]: the geometry half of the view models.
//! Every function returns `None` when the result is not known exactly; the view value
//! then still reaches its root, only without a geometry.

use crate::ir::{SliceSpec, ViewOp};
use crate::oracle::{Dim, Expr, RootId, View};

/// The geometry of `src` after `op`.
pub fn apply(src: &View, op: &ViewOp) -> Option<View> {
    match op {
        ViewOp::Whole => Some(src.clone()),
        ViewOp::Slice(specs) => slice(src, specs),
        ViewOp::Transpose => Some(src.transpose()),
        ViewOp::Permute(order) => src.permute(order),
        ViewOp::Broadcast(shape) => src.broadcast(shape.clone()),
        ViewOp::Reshape(shape) => src.reshape(shape.clone()),
        ViewOp::Diag => diag(src),
        ViewOp::Split { axis, at, second } => {
            let (a, b) = src.split_at(*axis, at.clone())?;
            Some(if *second { b } else { a })
        }
        ViewOp::Iter {
            axis,
            chunk: None,
            index,
        } => src.index(*axis, index.clone()),
        ViewOp::Iter {
            axis,
            chunk: Some(c),
            index,
        } => src.chunk(*axis, index.clone(), c.clone()),
        ViewOp::Offset(delta) => Some(src.offset_by(delta.clone())),
        ViewOp::FromRaw { shape, strides } => Some(from_raw(
            src.root,
            src.elem_bytes,
            &src.offset,
            shape,
            strides.as_deref(),
        )),
        ViewOp::Opaque(_) => None,
    }
}

/// A view rebuilt from a pointer at `offset` of `root` (`from_raw_parts`,
/// `from_shape_ptr`); row-major unless strides are given.
pub fn from_raw(
    root: RootId,
    elem_bytes: u32,
    offset: &Expr,
    shape: &[Expr],
    strides: Option<&[Expr]>,
) -> View {
    let mut view = View::contiguous(root, elem_bytes, shape.to_vec());
    if let Some(strides) = strides.filter(|s| s.len() == shape.len()) {
        for (d, s) in view.dims.iter_mut().zip(strides) {
            d.stride = s.clone();
        }
    }
    view.offset = offset.clone();
    view
}

/// The element a raw pointer derived from `src` points at: its first element.
pub fn pointer_to_start(src: &View) -> View {
    View {
        root: src.root,
        elem_bytes: src.elem_bytes,
        offset: src.offset.clone(),
        dims: Vec::new(),
    }
}

/// The element (or sub-view) `a[[i, j, ..]]` addresses.
pub fn index(src: &View, indices: &[Expr]) -> Option<View> {
    let mut out = src.clone();
    for i in indices {
        out = out.index(0, i.clone())?;
    }
    Some(out)
}

fn slice(src: &View, specs: &[SliceSpec]) -> Option<View> {
    let mut out = src.clone();
    let mut axis = 0;
    for spec in specs {
        match spec {
            SliceSpec::Range { start, end, step } => {
                let len = out.dims.get(axis)?.len.clone();
                let start = start.clone().unwrap_or_else(|| Expr::int(0));
                let end = end.clone().unwrap_or(len);
                out = out.slice(axis, start, end, step.as_const()?)?;
                axis += 1;
            }
            SliceSpec::Index(i) => {
                let len = out.dims.get(axis)?.len.clone();
                let i = match i.as_const() {
                    Some(c) if c < 0 => &len + i,
                    _ => i.clone(),
                };
                out = out.index(axis, i)?;
            }
            SliceSpec::NewAxis => {
                if axis > out.dims.len() {
                    return None;
                }
                out.dims.insert(axis, Dim::new(1, 0));
                axis += 1;
            }
        }
    }
    Some(out)
}

fn diag(src: &View) -> Option<View> {
    let [a, b] = src.dims.as_slice() else {
        return None;
    };
    let mut out = src.clone();
    out.dims = vec![Dim {
        len: a.len.minimum(&b.len),
        stride: &a.stride + &b.stride,
    }];
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: i64, cols: i64) -> View {
        View::contiguous(RootId(0), 4, vec![Expr::int(rows), Expr::int(cols)])
    }

    #[test]
    fn negative_step_slice_walks_backwards_from_the_end() {
        let spec = SliceSpec::Range {
            start: None,
            end: None,
            step: Expr::int(-1),
        };
        let v = apply(
            &m(3, 4),
            &ViewOp::Slice(vec![SliceSpec::Index(Expr::int(1)), spec]),
        )
        .expect("known");
        assert_eq!(v.offset.as_const(), Some(7));
        assert_eq!(v.dims.len(), 1);
        assert_eq!(v.dims[0].stride.as_const(), Some(-1));
        assert_eq!(v.dims[0].len.as_const(), Some(4));
    }

    #[test]
    fn negative_index_counts_from_the_end_of_the_axis() {
        let v = apply(
            &m(3, 4),
            &ViewOp::Slice(vec![SliceSpec::Index(Expr::int(-1))]),
        )
        .expect("known");
        assert_eq!(v.offset.as_const(), Some(8));
    }

    #[test]
    fn diag_steps_by_row_plus_column_stride() {
        let v = apply(&m(3, 3), &ViewOp::Diag).expect("known");
        assert_eq!(v.dims[0].stride.as_const(), Some(4));
        assert_eq!(v.dims[0].len.as_const(), Some(3));
    }

    #[test]
    fn pointer_offset_then_from_raw_keeps_the_offset() {
        let p = pointer_to_start(&m(2, 8)).offset_by(Expr::int(5));
        let v = from_raw(p.root, 4, &p.offset, &[Expr::int(3)], None);
        assert_eq!(v.offset.as_const(), Some(5));
        assert_eq!(v.dims[0].stride.as_const(), Some(1));
    }
}
