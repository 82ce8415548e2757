//! The view algebra: a strided view of one root allocation and the operations the front
//! end applies to it (slicing, indexing, permuting, broadcasting, reshaping, splitting,
//! chunking, pointer offsets).
//!
//! Units: `offset` and every `stride` count elements of the view's own element size
//! `elem_bytes`, so the element at index tuple `x` starts at byte
//! `elem_bytes * (offset + Σ x_k * stride_k)` of the root and covers `elem_bytes` bytes.
//! Two views over one root with different element sizes (a `u8` view of an `f32`
//! buffer) are compared byte by byte.

use super::expr::Expr;

/// An allocation that views point into; views of different roots never alias.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RootId(pub u32);

/// One dimension of a view: `len` indices, `stride` elements apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    pub len: Expr,
    pub stride: Expr,
}

impl Dim {
    pub fn new(len: impl Into<Expr>, stride: impl Into<Expr>) -> Dim {
        Dim {
            len: len.into(),
            stride: stride.into(),
        }
    }
}

/// A strided view: index tuple `x` reaches element `offset + Σ x_k * dims[k].stride`
/// (in units of `elem_bytes`, see the module docs) for `0 <= x_k < dims[k].len`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub root: RootId,
    pub elem_bytes: u32,
    pub offset: Expr,
    pub dims: Vec<Dim>,
}

impl View {
    /// The geometry of an array parameter `name` of rank `ndim`, with symbolic lengths
    /// `name.dim0`, `name.dim1`, ...: contiguous when the array is owned, with symbolic
    /// strides `name.stride0`, ... when it is a view the caller picks.
    pub fn of_parameter(
        root: RootId,
        elem_bytes: u32,
        name: &str,
        ndim: usize,
        owned: bool,
    ) -> View {
        let lens: Vec<Expr> = (0..ndim)
            .map(|k| Expr::sym(&format!("{name}.dim{k}")))
            .collect();
        if owned {
            return View::contiguous(root, elem_bytes, lens);
        }
        View {
            root,
            elem_bytes,
            offset: Expr::int(0),
            dims: lens
                .into_iter()
                .enumerate()
                .map(|(k, len)| Dim {
                    len,
                    stride: Expr::sym(&format!("{name}.stride{k}")),
                })
                .collect(),
        }
    }

    /// A row-major (C order) view of a fresh allocation of the given shape.
    pub fn contiguous(root: RootId, elem_bytes: u32, shape: Vec<Expr>) -> View {
        let mut dims: Vec<Dim> = Vec::with_capacity(shape.len());
        let mut stride = Expr::int(1);
        for len in shape.into_iter().rev() {
            let next = &stride * &len;
            dims.push(Dim { len, stride });
            stride = next;
        }
        dims.reverse();
        View {
            root,
            elem_bytes,
            offset: Expr::int(0),
            dims,
        }
    }

    /// A view from explicit parts, for concrete queries.
    pub fn strided(
        root: RootId,
        elem_bytes: u32,
        offset: i64,
        shape: &[i64],
        strides: &[i64],
    ) -> View {
        View {
            root,
            elem_bytes,
            offset: Expr::int(offset),
            dims: shape
                .iter()
                .zip(strides)
                .map(|(&l, &s)| Dim::new(l, s))
                .collect(),
        }
    }

    pub fn ndim(&self) -> usize {
        self.dims.len()
    }

    pub fn shape(&self) -> Vec<Expr> {
        self.dims.iter().map(|d| d.len.clone()).collect()
    }

    /// Whether no expression of the view mentions a symbol.
    pub fn is_concrete(&self) -> bool {
        self.offset.is_const()
            && self
                .dims
                .iter()
                .all(|d| d.len.is_const() && d.stride.is_const())
    }

    /// Whether a dimension has a constant length of zero or less (no addresses at all).
    pub fn is_trivially_empty(&self) -> bool {
        self.dims
            .iter()
            .any(|d| d.len.as_const().is_some_and(|l| l <= 0))
    }

    /// Every symbol the view mentions.
    pub fn symbols(&self) -> std::collections::BTreeSet<String> {
        let mut out = self.offset.symbols();
        for d in &self.dims {
            out.extend(d.len.symbols());
            out.extend(d.stride.symbols());
        }
        out
    }

    pub fn mentions(&self, name: &str) -> bool {
        self.offset.mentions(name)
            || self
                .dims
                .iter()
                .any(|d| d.len.mentions(name) || d.stride.mentions(name))
    }

    /// The view with symbol `name` replaced by `value` everywhere.
    pub fn subst(&self, name: &str, value: &Expr) -> View {
        self.map_symbols(&|s| (s == name).then(|| value.clone()))
    }

    /// The view with each symbol `f` gives a value for replaced by that value.
    pub fn map_symbols(&self, f: &dyn Fn(&str) -> Option<Expr>) -> View {
        View {
            root: self.root,
            elem_bytes: self.elem_bytes,
            offset: self.offset.map_symbols(f),
            dims: self
                .dims
                .iter()
                .map(|d| Dim {
                    len: d.len.map_symbols(f),
                    stride: d.stride.map_symbols(f),
                })
                .collect(),
        }
    }

    /// The element index tuple `x` reaches (in `elem_bytes` units).
    pub fn address(&self, index: &[Expr]) -> Expr {
        let mut addr = self.offset.clone();
        for (d, x) in self.dims.iter().zip(index) {
            addr = &addr + &(&d.stride * x);
        }
        addr
    }

    /// `start..end` with `step` along `axis`, with ndarray's `s![start..end; step]`
    /// meaning: a negative step walks the same range backwards from `end - 1`. A
    /// negative constant `start`/`end` counts from the end of the axis. `None` when the
    /// axis does not exist or the step is zero.
    pub fn slice(&self, axis: usize, start: Expr, end: Expr, step: i64) -> Option<View> {
        let dim = self.dims.get(axis)?;
        if step == 0 {
            return None;
        }
        let from_end = |e: Expr| match e.as_const() {
            Some(c) if c < 0 => &dim.len + &e,
            _ => e,
        };
        let (mut start, mut end) = (from_end(start), from_end(end));
        if let (Some(s), Some(e), Some(l)) = (start.as_const(), end.as_const(), dim.len.as_const())
        {
            let s = s.clamp(0, l.max(0));
            start = Expr::int(s);
            end = Expr::int(e.clamp(s, l.max(0)));
        }
        let magnitude = Expr::int(step.checked_abs()?);
        let len = (&(&end - &start) + &(&magnitude - 1)).div_floor(magnitude.clone());
        let len = match len.as_const() {
            Some(l) if l < 0 => Expr::int(0),
            _ => len,
        };
        let mut out = self.clone();
        let first = if step > 0 { start } else { &end - 1 };
        out.offset = &self.offset + &(&first * &dim.stride);
        out.dims[axis] = Dim {
            len,
            stride: &dim.stride * step,
        };
        Some(out)
    }

    /// Fixes index `i` of `axis`, dropping the dimension.
    pub fn index(&self, axis: usize, i: Expr) -> Option<View> {
        let dim = self.dims.get(axis)?;
        let mut out = self.clone();
        out.offset = &self.offset + &(&i * &dim.stride);
        out.dims.remove(axis);
        Some(out)
    }

    /// Reorders the axes: axis `k` of the result is axis `order[k]` of `self`. `None`
    /// unless `order` is a permutation of the axes.
    pub fn permute(&self, order: &[usize]) -> Option<View> {
        if order.len() != self.dims.len() {
            return None;
        }
        let mut seen = vec![false; order.len()];
        for &k in order {
            if std::mem::replace(seen.get_mut(k)?, true) {
                return None;
            }
        }
        let mut out = self.clone();
        out.dims = order.iter().map(|&k| self.dims[k].clone()).collect();
        Some(out)
    }

    /// Reverses the axes (`.t()`).
    pub fn transpose(&self) -> View {
        let mut out = self.clone();
        out.dims.reverse();
        out
    }

    /// Broadcasts to `shape` with numpy's rules: axes align from the right, a length-1
    /// axis or a missing leading axis becomes stride 0. `None` when an axis length
    /// differs and is not 1 (structurally, for symbolic lengths).
    pub fn broadcast(&self, shape: Vec<Expr>) -> Option<View> {
        if shape.len() < self.dims.len() {
            return None;
        }
        let lead = shape.len() - self.dims.len();
        let mut dims = Vec::with_capacity(shape.len());
        for (k, len) in shape.into_iter().enumerate() {
            if k < lead {
                dims.push(Dim::new(len, 0));
                continue;
            }
            let old = &self.dims[k - lead];
            if old.len == len {
                dims.push(old.clone());
            } else if old.len.as_const() == Some(1) {
                dims.push(Dim::new(len, 0));
            } else {
                return None;
            }
        }
        let mut out = self.clone();
        out.dims = dims;
        Some(out)
    }

    /// Whether the view is row-major contiguous: the last stride is 1 and each stride is
    /// the next one times the next length (length-1 axes are ignored).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = Expr::int(1);
        for d in self.dims.iter().rev() {
            if d.len.as_const() == Some(1) {
                continue;
            }
            if d.stride != expected {
                return false;
            }
            expected = &expected * &d.len;
        }
        true
    }

    /// Reshapes a contiguous view (row-major order of elements is kept). `None` when the
    /// view is not contiguous or the element counts are not provably equal.
    pub fn reshape(&self, shape: Vec<Expr>) -> Option<View> {
        if !self.is_contiguous() {
            return None;
        }
        let count =
            |lens: &mut dyn Iterator<Item = Expr>| lens.fold(Expr::int(1), |acc, l| &acc * &l);
        if count(&mut self.dims.iter().map(|d| d.len.clone())) != count(&mut shape.iter().cloned())
        {
            return None;
        }
        let mut out = View::contiguous(self.root, self.elem_bytes, shape);
        out.offset = self.offset.clone();
        Some(out)
    }

    /// Splits `axis` at `mid` (`split_at`): indices `..mid` and `mid..`.
    pub fn split_at(&self, axis: usize, mid: Expr) -> Option<(View, View)> {
        let dim = self.dims.get(axis)?;
        let mut left = self.clone();
        left.dims[axis].len = mid.clone();
        let mut right = self.clone();
        right.offset = &self.offset + &(&mid * &dim.stride);
        right.dims[axis].len = &dim.len - &mid;
        Some((left, right))
    }

    /// Chunk `i` of size `c` along `axis` (`chunks(c).nth(i)`): indices
    /// `i*c .. min((i+1)*c, len)`.
    pub fn chunk(&self, axis: usize, i: Expr, c: Expr) -> Option<View> {
        let dim = self.dims.get(axis)?;
        let start = &i * &c;
        let mut out = self.clone();
        out.offset = &self.offset + &(&start * &dim.stride);
        out.dims[axis].len = c.minimum(&(&dim.len - &start));
        Some(out)
    }

    /// Moves the start by `delta` elements (`ptr.add(delta)`).
    pub fn offset_by(&self, delta: Expr) -> View {
        let mut out = self.clone();
        out.offset = &self.offset + &delta;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concrete_addresses(v: &View) -> Vec<i128> {
        let lens: Vec<i64> = v
            .dims
            .iter()
            .map(|d| d.len.as_const().unwrap_or(0))
            .collect();
        let mut out = Vec::new();
        let total: i64 = lens.iter().map(|&l| l.max(0)).product();
        for mut flat in 0..total {
            let mut idx = vec![0i64; lens.len()];
            for k in (0..lens.len()).rev() {
                idx[k] = flat % lens[k];
                flat /= lens[k];
            }
            let e: Vec<Expr> = idx.into_iter().map(Expr::int).collect();
            out.push(v.address(&e).eval(&|_| None).unwrap_or(i128::MIN));
        }
        out
    }

    fn matrix() -> View {
        View::contiguous(RootId(0), 4, vec![Expr::int(3), Expr::int(4)])
    }

    #[test]
    fn contiguous_views_are_row_major() {
        let v = matrix();
        assert_eq!(v.dims[0], Dim::new(3, 4));
        assert_eq!(v.dims[1], Dim::new(4, 1));
        assert!(v.is_contiguous());
        assert_eq!(concrete_addresses(&v), (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn negative_step_walks_the_range_backwards() {
        let v = matrix().slice(1, Expr::int(0), Expr::int(4), -2);
        let v = v.and_then(|v| v.index(0, Expr::int(0)));
        assert_eq!(v.map(|v| concrete_addresses(&v)), Some(vec![3, 1]));
    }

    #[test]
    fn slice_clamps_and_counts_from_the_end() {
        let v = matrix().slice(1, Expr::int(-3), Expr::int(10), 1);
        let v = v.and_then(|v| v.index(0, Expr::int(1)));
        assert_eq!(v.map(|v| concrete_addresses(&v)), Some(vec![5, 6, 7]));
        assert!(matrix().slice(1, Expr::int(0), Expr::int(4), 0).is_none());
    }

    #[test]
    fn transpose_and_permute_reorder_axes() {
        let t = matrix().transpose();
        assert_eq!(t.dims[0], Dim::new(4, 1));
        assert_eq!(matrix().permute(&[1, 0]), Some(t));
        assert!(matrix().permute(&[0, 0]).is_none());
        assert!(matrix().permute(&[0]).is_none());
    }

    #[test]
    fn broadcast_uses_stride_zero() {
        let row = View::contiguous(RootId(0), 4, vec![Expr::int(1), Expr::int(4)]);
        let b = row.broadcast(vec![Expr::int(2), Expr::int(3), Expr::int(4)]);
        let b = b.map(|b| b.dims.iter().map(|d| d.stride.clone()).collect::<Vec<_>>());
        assert_eq!(b, Some(vec![Expr::int(0), Expr::int(0), Expr::int(1)]));
        assert!(matrix()
            .broadcast(vec![Expr::int(5), Expr::int(4)])
            .is_none());
    }

    #[test]
    fn reshape_needs_contiguity_and_equal_counts() {
        let r = matrix().reshape(vec![Expr::int(2), Expr::int(6)]);
        assert_eq!(r.map(|r| concrete_addresses(&r)), Some((0..12).collect()));
        assert!(matrix().transpose().reshape(vec![Expr::int(12)]).is_none());
        assert!(matrix().reshape(vec![Expr::int(13)]).is_none());
        let n = Expr::sym("n");
        let sym = View::contiguous(RootId(0), 4, vec![n.clone(), Expr::int(4)]);
        assert!(sym.reshape(vec![&n * 4]).is_some());
    }

    #[test]
    fn split_and_chunk_cover_the_axis() {
        let v = View::contiguous(RootId(0), 1, vec![Expr::int(10)]);
        let (l, r) = v
            .split_at(0, Expr::int(4))
            .unwrap_or_else(|| (v.clone(), v.clone()));
        assert_eq!(concrete_addresses(&l), vec![0, 1, 2, 3]);
        assert_eq!(concrete_addresses(&r), vec![4, 5, 6, 7, 8, 9]);
        let last = v.chunk(0, Expr::int(3), Expr::int(3));
        assert_eq!(last.map(|c| concrete_addresses(&c)), Some(vec![9]));
        let sym = v.chunk(0, Expr::sym("i"), Expr::int(3));
        assert_eq!(sym.map(|c| c.offset), Some(Expr::sym("i") * 3));
    }

    #[test]
    fn offset_by_moves_the_start() {
        let v = matrix().offset_by(Expr::sym("k"));
        assert_eq!(v.offset, Expr::sym("k"));
    }
}
