//! Stable sorting through a comparator behind a reference.
//!
//! `slice::sort_by` is compiled anew for every comparator closure, and each copy of the sort is
//! a few kilobytes of wasm; the widget sorts a handful of small lists (search hits, candidate
//! sentences) with a dozen comparators. Through [`sort_by`] every comparator of one element type
//! shares one copy (the comparisons become indirect calls: nothing at the sizes sorted here).
//! The hot scans (vectors, BM25 postings) keep their own sorts.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)` does, with one compiled sort per `T`.
pub fn sort_by<T>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    v.sort_by(|a, b| cmp(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_as_the_slice_sort_does() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd'), (1, 'e')];
        let mut w = v.clone();
        sort_by(&mut v, &|a, b| a.0.cmp(&b.0));
        w.sort_by_key(|a| a.0);
        assert_eq!(v, w);
        assert_eq!(v, [(0, 'd'), (1, 'b'), (1, 'e'), (2, 'a'), (2, 'c')]);
    }
}
