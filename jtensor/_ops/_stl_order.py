"""The orderings of GNU libstdc++'s ``std::partial_sort``, ``std::nth_element`` and
``std::sort``, which PyTorch's CPU ``topk`` runs (``aten/src/ATen/native/TopKImpl.h``), and
``std::sort`` alone, which its ``sort(stable=False)`` runs (``SortingKernel.cpp``).

None of them is stable: which of several equal keys ``topk`` reports, and in which order,
is whatever these algorithms leave where. Programs see it (pruning the smallest weights of
a tensor holding equal values zeroes PyTorch's choice of them), so jtensor replays the same
steps: introselect with median-of-three pivots, heap selection, introsort with insertion
sort below 16 elements, written after the algorithms' published structure.

The routines work in place on ``keys`` (Python ints: equal keys are the ties, ``<`` is the
comparator) and move ``items`` (the original positions) along with them. They run in
Python, so ``topk`` calls them only for the rows whose result the ties decide.
"""

STL_THRESHOLD = 16  # libstdc++'s _S_threshold: introsort hands smaller ranges to insertion sort


def _lg(n):
    return n.bit_length() - 1


class Sequence:
    """``keys`` and ``items`` moved together; the methods are libstdc++'s, by name."""

    __slots__ = ("keys", "items")

    def __init__(self, keys, items):
        self.keys = keys
        self.items = items

    def _swap(self, i, j):
        k, v = self.keys, self.items
        k[i], k[j] = k[j], k[i]
        v[i], v[j] = v[j], v[i]

    # ------------------------------------------------------------------ heaps
    def _adjust_heap(self, first, hole, length, key, item):
        k, v = self.keys, self.items
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if k[first + child] < k[first + child - 1]:
                child -= 1
            k[first + hole], v[first + hole] = k[first + child], v[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            k[first + hole], v[first + hole] = k[first + child - 1], v[first + child - 1]
            hole = child - 1
        # push the saved element back up from the hole
        parent = (hole - 1) // 2
        while hole > top and k[first + parent] < key:
            k[first + hole], v[first + hole] = k[first + parent], v[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        k[first + hole], v[first + hole] = key, item

    def _make_heap(self, first, last):
        length = last - first
        if length < 2:
            return
        parent = (length - 2) // 2
        while True:
            self._adjust_heap(
                first, parent, length, self.keys[first + parent], self.items[first + parent]
            )
            if parent == 0:
                return
            parent -= 1

    def _pop_heap(self, first, last, result):
        k, v = self.keys, self.items
        key, item = k[result], v[result]
        k[result], v[result] = k[first], v[first]
        self._adjust_heap(first, 0, last - first, key, item)

    def _heap_select(self, first, middle, last):
        self._make_heap(first, middle)
        k = self.keys
        for i in range(middle, last):
            if k[i] < k[first]:
                self._pop_heap(first, middle, i)

    def _sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            self._pop_heap(first, last, last)

    def partial_sort(self, first, middle, last):
        """``std::partial_sort``: the ``middle - first`` smallest keys, sorted, in front."""
        self._heap_select(first, middle, last)
        self._sort_heap(first, middle)

    # ------------------------------------------------------------ partitioning
    def _move_median_to_first(self, result, a, b, c):
        k = self.keys
        if k[a] < k[b]:
            if k[b] < k[c]:
                self._swap(result, b)
            elif k[a] < k[c]:
                self._swap(result, c)
            else:
                self._swap(result, a)
        elif k[a] < k[c]:
            self._swap(result, a)
        elif k[b] < k[c]:
            self._swap(result, c)
        else:
            self._swap(result, b)

    def _unguarded_partition(self, first, last, pivot):
        k = self.keys
        p = k[pivot]  # the pivot sits outside [first, last) and never moves
        while True:
            while k[first] < p:
                first += 1
            last -= 1
            while p < k[last]:
                last -= 1
            if not first < last:
                return first
            self._swap(first, last)
            first += 1

    def _partition_pivot(self, first, last):
        mid = first + (last - first) // 2
        self._move_median_to_first(first, first + 1, mid, last - 1)
        return self._unguarded_partition(first + 1, last, first)

    # --------------------------------------------------------- insertion sort
    def _linear_insert(self, last):
        k, v = self.keys, self.items
        key, item = k[last], v[last]
        nxt = last - 1
        while key < k[nxt]:
            k[last], v[last] = k[nxt], v[nxt]
            last = nxt
            nxt -= 1
        k[last], v[last] = key, item

    def _insertion_sort(self, first, last):
        if first == last:
            return
        k, v = self.keys, self.items
        for i in range(first + 1, last):
            if k[i] < k[first]:
                key, item = k[i], v[i]
                k[first + 1 : i + 1] = k[first:i]
                v[first + 1 : i + 1] = v[first:i]
                k[first], v[first] = key, item
            else:
                self._linear_insert(i)

    # -------------------------------------------------------------- selection
    def nth_element(self, first, nth, last):
        """``std::nth_element`` (introselect)."""
        if first == last or nth == last:
            return
        depth = _lg(last - first) * 2
        while last - first > 3:
            if depth == 0:
                self._heap_select(first, nth + 1, last)
                self._swap(first, nth)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self._insertion_sort(first, last)

    def _introsort_loop(self, first, last, depth):
        while last - first > STL_THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            self._introsort_loop(cut, last, depth)
            last = cut

    def sort(self, first, last):
        """``std::sort`` (introsort, then a final insertion sort)."""
        if first == last:
            return
        self._introsort_loop(first, last, _lg(last - first) * 2)
        if last - first > STL_THRESHOLD:
            self._insertion_sort(first, first + STL_THRESHOLD)
            for i in range(first + STL_THRESHOLD, last):
                self._linear_insert(i)
        else:
            self._insertion_sort(first, last)


def sort_positions(keys):
    """The positions of ``keys`` (ints; ties equal) in the order ``std::sort`` leaves them
    (PyTorch's CPU ``sort(stable=False)``)."""
    n = len(keys)
    seq = Sequence(list(keys), list(range(n)))
    seq.sort(0, n)
    return seq.items


def topk_positions(keys, k, sorted):
    """The positions PyTorch's CPU ``topk`` reports for one row, given each element's key
    (ints; the smallest key first, ties equal)."""
    n = len(keys)
    seq = Sequence(list(keys), list(range(n)))
    if k * 64 <= n:
        seq.partial_sort(0, k, n)
    else:
        seq.nth_element(0, k - 1, n)
        if sorted:
            seq.sort(0, k - 1)
    return seq.items[:k]
