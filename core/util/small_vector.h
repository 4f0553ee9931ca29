#pragma once
// A vector of trivially copyable values that keeps up to N of them inside itself and only goes
// to the heap beyond that. The search builds and drops millions of small regions (a Func's
// few dimensions as (min, max) spans) per second; with std::vector each one was a heap
// allocation and a free, a third of a search's time on Halide's apps. It offers the part of
// std::vector's interface the project uses, converts to and from std::vector, and compares
// equal to another with the same elements.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

namespace beamscope {

template <typename T, size_t N>
class SmallVector {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "SmallVector copies its elements as bytes");

public:
    using value_type = T;
    using size_type = size_t;
    using iterator = T *;
    using const_iterator = const T *;
    using reference = T &;
    using const_reference = const T &;

    SmallVector() = default;
    explicit SmallVector(size_t n, const T &v = T()) { assign(n, v); }
    SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
    template <typename It, typename = decltype(*std::declval<It>())>
    SmallVector(It first, It last)
    {
        assign(first, last);
    }
    SmallVector(const std::vector<T> &v) { assign(v.begin(), v.end()); }
    SmallVector(const SmallVector &o) { assign(o.begin(), o.end()); }
    SmallVector(SmallVector &&o) noexcept { take(o); }
    SmallVector &operator=(const SmallVector &o)
    {
        if (this != &o)
            assign(o.begin(), o.end());
        return *this;
    }
    SmallVector &operator=(SmallVector &&o) noexcept
    {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~SmallVector() { release(); }

    operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    size_t capacity() const { return m_capacity; }
    T *data() { return m_data; }
    const T *data() const { return m_data; }
    T *begin() { return m_data; }
    T *end() { return m_data + m_size; }
    const T *begin() const { return m_data; }
    const T *end() const { return m_data + m_size; }
    T &operator[](size_t i) { return m_data[i]; }
    const T &operator[](size_t i) const { return m_data[i]; }
    T &front() { return m_data[0]; }
    const T &front() const { return m_data[0]; }
    T &back() { return m_data[m_size - 1]; }
    const T &back() const { return m_data[m_size - 1]; }

    void reserve(size_t n)
    {
        if (n <= m_capacity)
            return;
        std::unique_ptr<T[]> grown(new T[n]);
        if (m_size)
            std::memcpy(grown.get(), m_data, m_size * sizeof(T));
        release();
        m_heap = std::move(grown);
        m_data = m_heap.get();
        m_capacity = n;
    }
    void clear() { m_size = 0; }
    void resize(size_t n, const T &v = T())
    {
        reserve(n);
        std::fill(m_data + std::min(n, m_size), m_data + n, v);
        m_size = n;
    }
    void assign(size_t n, const T &v)
    {
        m_size = 0;
        resize(n, v);
    }
    template <typename It>
    void assign(It first, It last)
    {
        const size_t n = static_cast<size_t>(std::distance(first, last));
        m_size = 0;
        reserve(n);
        std::copy(first, last, m_data);
        m_size = n;
    }
    void push_back(const T &v)
    {
        if (m_size == m_capacity) {
            const T copy = v; // v may live in this vector
            reserve(m_capacity * 2);
            m_data[m_size++] = copy;
            return;
        }
        m_data[m_size++] = v;
    }
    template <typename... Args>
    T &emplace_back(Args &&...args)
    {
        push_back(T{std::forward<Args>(args)...});
        return back();
    }
    void pop_back() { m_size--; }

    friend bool operator==(const SmallVector &a, const SmallVector &b)
    {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator!=(const SmallVector &a, const SmallVector &b) { return !(a == b); }

private:
    void release()
    {
        m_heap.reset();
        m_data = m_inline;
        m_capacity = N;
    }
    // Moves o's elements here (this is empty and inline) and leaves o empty.
    void take(SmallVector &o)
    {
        if (o.m_heap) {
            m_heap = std::move(o.m_heap);
            m_data = m_heap.get();
            m_capacity = o.m_capacity;
        } else if (o.m_size) {
            std::memcpy(m_inline, o.m_inline, o.m_size * sizeof(T));
        }
        m_size = o.m_size;
        o.release();
        o.m_size = 0;
    }

    T m_inline[N];
    std::unique_ptr<T[]> m_heap;
    T *m_data = m_inline;
    size_t m_size = 0;
    size_t m_capacity = N;
};

} // namespace beamscope
