//! `alloc`, `free`, `view` and `inplace` on free functions, methods, trait methods,
//! `extern` declarations and destructuring parameters, alone and stacked.

use std::alloc::{alloc_zeroed, dealloc, Layout};

struct Pool {
    free_list: Vec<Vec<f32>>,
}

impl Pool {
    #[tensor_lint::alloc]
    fn checkout(&mut self, len: usize) -> Vec<f32> {
        let mut buf = self.free_list.pop().unwrap_or_default();
        buf.clear();
        buf.resize(len, 0.0);
        buf
    }

    #[tensor_lint::free(buf)]
    fn give_back(&mut self, buf: Vec<f32>) {
        self.free_list.push(buf);
    }

    #[tensor_lint::free(self)]
    fn drain(&mut self) {
        self.free_list.clear();
    }

    #[tensor_lint::view(of = self)]
    fn spare(&self) -> Option<&Vec<f32>> {
        self.free_list.last()
    }
}

#[tensor_lint::alloc]
unsafe fn raw_zeroed(len: usize) -> *mut f32 {
    alloc_zeroed(Layout::array::<f32>(len).expect("small layout")) as *mut f32
}

#[tensor_lint::free(ptr)]
unsafe fn raw_release(ptr: *mut f32, len: usize) {
    dealloc(
        ptr as *mut u8,
        Layout::array::<f32>(len).expect("small layout"),
    );
}

#[tensor_lint::view(of = data)]
fn row(data: &[f32], cols: usize, r: usize) -> &[f32] {
    &data[r * cols..(r + 1) * cols]
}

#[tensor_lint::inplace(x)]
fn relu_(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

#[tensor_lint::inplace(a, b)]
fn swap_halves(a: &mut [f32], b: &mut [f32]) {
    a.swap_with_slice(b);
}

#[tensor_lint::inplace(left, right)]
#[tensor_lint::view(of = left)]
fn sort_pair<'a>((left, right): (&'a mut [f32], &mut [f32])) -> &'a mut [f32] {
    left.sort_by(f32::total_cmp);
    right.sort_by(f32::total_cmp);
    left
}

#[tensor_lint::free(a)]
#[tensor_lint::free(b)]
fn release_both(a: Vec<f32>, b: Vec<f32>) -> usize {
    a.len() + b.len()
}

trait Allocator {
    #[tensor_lint::alloc]
    fn allocate(&mut self, len: usize) -> Box<[f32]>;

    #[tensor_lint::free(block)]
    fn deallocate(&mut self, block: Box<[f32]>);
}

impl Allocator for Pool {
    fn allocate(&mut self, len: usize) -> Box<[f32]> {
        self.checkout(len).into_boxed_slice()
    }

    fn deallocate(&mut self, block: Box<[f32]>) {
        self.give_back(block.into_vec());
    }
}

extern "C" {
    #[tensor_lint::alloc]
    fn malloc(size: usize) -> *mut u8;

    #[tensor_lint::free(ptr)]
    fn free(ptr: *mut u8);
}

unsafe extern "C" {
    #[tensor_lint::alloc]
    pub safe fn calloc(count: usize, size: usize) -> *mut u8;
}

fn main() {
    let mut pool = Pool {
        free_list: Vec::new(),
    };
    let buf = pool.checkout(4);
    assert_eq!(buf, [0.0; 4]);
    pool.give_back(buf);
    assert_eq!(pool.spare().map(Vec::len), Some(4));
    let block = pool.allocate(2);
    pool.deallocate(block);
    pool.drain();
    assert!(pool.spare().is_none());

    unsafe {
        let ptr = raw_zeroed(8);
        assert_eq!(*ptr.add(7), 0.0);
        raw_release(ptr, 8);
        let bytes = malloc(16);
        assert!(!bytes.is_null());
        free(bytes);
        let zeroed = calloc(4, 4);
        assert_eq!(*zeroed, 0);
        free(zeroed);
    }

    let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    assert_eq!(row(&data, 3, 1), [4.0, 5.0, 6.0]);
    let mut x = [-1.0, 2.0];
    relu_(&mut x);
    assert_eq!(x, [0.0, 2.0]);
    let (mut a, mut b) = ([1.0], [2.0]);
    swap_halves(&mut a, &mut b);
    assert_eq!((a, b), ([2.0], [1.0]));
    let (mut l, mut r) = ([3.0, 1.0], [2.0, 0.0]);
    assert_eq!(sort_pair((&mut l, &mut r)), [1.0, 3.0]);
    assert_eq!(release_both(vec![0.0], vec![0.0, 0.0]), 3);
}
