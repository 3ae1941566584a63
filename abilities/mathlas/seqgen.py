"""Generate the built-in OEIS-format sample (``stripped.gz`` + ``names.gz``) by computing the terms.

Nothing is downloaded: every sequence below is computed here from its definition, next to the
A-number and name it has in the OEIS. Run ``python -m abilities.mathlas.seqgen`` to rewrite the
files under ``abilities/mathlas/data/oeis_sample/`` (byte-identical output: gzip mtime is 0).
Only sequences whose A-number we are sure of are listed; fewer sure ones beat more doubtful ones.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from functools import cache
from itertools import accumulate, count, islice
from pathlib import Path

import mpmath

LINE_CHARS = 260
OUT_DIR = Path(__file__).parent / "data" / "oeis_sample"
SIEVE_N = 200_000


@cache
def _spf() -> list[int]:
    spf = list(range(SIEVE_N + 1))
    for i in range(2, int(SIEVE_N**0.5) + 1):
        if spf[i] == i:
            for j in range(i * i, SIEVE_N + 1, i):
                if spf[j] == j:
                    spf[j] = i
    return spf


def factor(n: int) -> dict[int, int]:
    spf, f = _spf(), {}
    while n > 1:
        p = spf[n]
        f[p] = f.get(p, 0) + 1
        n //= p
    return f


def is_prime(n: int) -> bool:
    return n >= 2 and _spf()[n] == n


@cache
def primes() -> list[int]:
    return [p for p in range(2, SIEVE_N + 1) if is_prime(p)]


def sigma(n: int, k: int = 1) -> int:
    r = 1
    for p, e in factor(n).items():
        r *= sum(p ** (k * i) for i in range(e + 1))
    return r


def ndiv(n: int) -> int:
    return math.prod(e + 1 for e in factor(n).values())


def phi(n: int) -> int:
    r = n
    for p in factor(n):
        r = r // p * (p - 1)
    return r


def mobius(n: int) -> int:
    f = factor(n)
    return 0 if any(e > 1 for e in f.values()) else (-1) ** len(f)


def lin(init: list[int], coeffs: list[int]) -> Iterator[int]:
    """a(n) = sum coeffs[i]*a(n-1-i), starting from init."""
    a = list(init)
    yield from a
    while True:
        nxt = sum(c * a[-1 - i] for i, c in enumerate(coeffs))
        a.append(nxt)
        a = a[-len(coeffs):]
        yield nxt


def f_of(fn: Callable[[int], int], start: int = 0) -> Iterator[int]:
    return (fn(n) for n in count(start))


def where(pred: Callable[[int], bool], start: int = 1) -> Iterator[int]:
    return (n for n in range(start, SIEVE_N) if pred(n))


def series_product(factors: Callable[[int], list[int]], n: int) -> list[int]:
    """Coefficients of prod_k P_k(x) truncated at x^n, where factors(k) gives P_k's coefficients."""
    a = [1] + [0] * n
    for k in range(1, n + 1):
        p = factors(k)
        b = [0] * (n + 1)
        for i, ai in enumerate(a):
            if ai:
                for j, pj in enumerate(p):
                    if i + j > n:
                        break
                    b[i + j] += ai * pj
        a = b
    return a


def inv_series(n: int, part: Callable[[int], int], reps: int = 1) -> list[int]:
    """prod_k 1/(1-x^k)^(part(k)*reps): partitions with part(k) kinds of part k."""
    a = [1] + [0] * n
    for k in range(1, n + 1):
        for _ in range(part(k) * reps):
            for i in range(k, n + 1):
                a[i] += a[i - k]
    return a


def euler_transform(b: list[int]) -> list[int]:
    n = len(b) - 1
    return inv_series(n, lambda k: b[k])


def digits_of(value: Callable[[], mpmath.mpf], n: int = 130, skip_leading_zero: bool = True) -> list[int]:
    with mpmath.workdps(n + 30):
        s = mpmath.nstr(value(), n + 20, strip_zeros=False).replace(".", "").replace("-", "")
    s = s.lstrip("0") if skip_leading_zero else s
    return [int(c) for c in s[:n]]


def cfrac_of(value: Callable[[], mpmath.mpf], n: int = 60) -> list[int]:
    out = []
    with mpmath.workdps(400):
        x = value()
        for _ in range(n):
            a = int(mpmath.floor(x))
            out.append(a)
            x = 1 / (x - a)
    return out


def binom(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def catalan(n: int) -> int:
    return math.comb(2 * n, n) // (n + 1)


def motzkin() -> Iterator[int]:
    a = [1, 1]
    yield from a
    for n in count(2):
        a.append(((2 * n + 1) * a[-1] + (3 * n - 3) * a[-2]) // (n + 2))
        yield a[-1]


def schroeder_large() -> Iterator[int]:
    a = [1, 2]
    yield from a
    for n in count(2):
        a.append(((6 * n - 3) * a[-1] - (n - 2) * a[-2]) // (n + 1))
        yield a[-1]


def schroeder_small() -> Iterator[int]:
    yield 1
    it = schroeder_large()
    next(it)
    for v in it:
        yield v // 2


def bell() -> Iterator[int]:
    row = [1]
    yield 1
    while True:
        new = [row[-1]]
        for v in row:
            new.append(new[-1] + v)
        row = new
        yield row[0]


def zigzag() -> Iterator[int]:
    """Euler up/down numbers via the boustrophedon (Seidel) triangle."""
    row = [1]
    yield 1
    while True:
        new = [0]
        for v in reversed(row):
            new.append(new[-1] + v)
        row = new
        yield row[-1]


def derangements() -> Iterator[int]:
    a, b = 1, 0
    yield a
    yield b
    for n in count(2):
        a, b = b, (n - 1) * (a + b)
        yield b


def involutions() -> Iterator[int]:
    a, b = 1, 1
    yield a
    yield b
    for n in count(2):
        a, b = b, b + (n - 1) * a
        yield b


def kolakoski() -> list[int]:
    s = [1, 2, 2]
    i = 2
    while len(s) < 200:
        s.extend([1 if s[-1] == 2 else 2] * s[i])
        i += 1
    return s


def golomb() -> list[int]:
    a = [0, 1]
    for n in range(2, 200):
        a.append(1 + a[n - a[a[n - 1]]])
    return a[1:]


def hofstadter_q() -> list[int]:
    q = [0, 1, 1]
    for n in range(3, 200):
        q.append(q[n - q[n - 1]] + q[n - q[n - 2]])
    return q[1:]


def hofstadter_g() -> list[int]:
    g = [0]
    for n in range(1, 200):
        g.append(n - g[g[n - 1]])
    return g


def conway_10000() -> list[int]:
    a = [0, 1, 1]
    for n in range(3, 200):
        a.append(a[a[n - 1]] + a[n - a[n - 1]])
    return a[1:]


def figure_figure() -> list[int]:
    r, s_used = [1], {1}
    diffs = []
    d = 2
    while len(r) < 80:
        while d in s_used:
            d += 1
        diffs.append(d)
        r.append(r[-1] + d)
        s_used.update({r[-1], d})
        d += 1
    return r


def recaman() -> list[int]:
    a, seen = [0], {0}
    for n in range(1, 200):
        b = a[-1] - n
        a.append(b if b > 0 and b not in seen else a[-1] + n)
        seen.add(a[-1])
    return a


def collatz_steps(n: int) -> int:
    s = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        s += 1
    return s


def lucky() -> list[int]:
    L = list(range(1, 4000, 2))
    i = 1
    while i < len(L) and L[i] <= len(L):
        step = L[i]
        del L[step - 1::step]
        i += 1
    return L


def josephus_flavius() -> list[int]:
    L = list(range(1, 5000))
    k = 2
    while k <= len(L):
        del L[k - 1::k]
        k += 1
    return L


def rooted_trees(n: int) -> list[int]:
    a = [0, 1]
    for m in range(1, n):
        s = 0
        for k in range(1, m + 1):
            s += sum(d * a[d] for d in range(1, k + 1) if k % d == 0) * a[m - k + 1]
        a.append(s // m)
    return a


def free_trees(n: int) -> list[int]:
    r = rooted_trees(n + 2)
    out = [1]
    for m in range(1, n):
        s = sum(r[i] * r[m - i] for i in range(0, m + 1))
        v = r[m] - (s - (r[m // 2] if m % 2 == 0 else 0)) // 2
        out.append(v)
    return out


def wedderburn(n: int) -> list[int]:
    a = [0, 1]
    for m in range(2, n):
        if m % 2:
            s = sum(a[i] * a[m - i] for i in range(1, (m + 1) // 2))
        else:
            h = m // 2
            s = sum(a[i] * a[m - i] for i in range(1, h)) + a[h] * (a[h] + 1) // 2
        a.append(s)
    return a


def connected_labeled_graphs(n: int) -> list[int]:
    g = [2 ** (k * (k - 1) // 2) for k in range(n)]
    c = [1, 1]
    for m in range(2, n):
        c.append(g[m] - sum(binom(m - 1, k - 1) * c[k] * g[m - k] for k in range(1, m)))
    return c


def stirling1_unsigned(n: int, k: int) -> int:
    @cache
    def s(a: int, b: int) -> int:
        if a == b:
            return 1
        if b == 0 or a == 0:
            return 0
        return s(a - 1, b - 1) + (a - 1) * s(a - 1, b)
    return s(n, k)


def stirling2(n: int, k: int) -> int:
    return sum((-1) ** (k - j) * binom(k, j) * j**n for j in range(k + 1)) // math.factorial(k)


def bernoulli(n: int) -> Fraction:
    a = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
    return a[0] if n != 1 else Fraction(-1, 2)


def harmonic(n: int) -> Fraction:
    return sum((Fraction(1, k) for k in range(1, n + 1)), Fraction(0))


def digit_sum(n: int) -> int:
    return sum(map(int, str(n)))


def is_happy(n: int) -> bool:
    seen = set()
    while n != 1 and n not in seen:
        seen.add(n)
        n = sum(int(c) ** 2 for c in str(n))
    return n == 1


def is_perfect_power(n: int) -> bool:
    if n == 1:
        return True
    f = factor(n)
    return math.gcd(*f.values()) > 1


def is_squarefree(n: int) -> bool:
    return all(e == 1 for e in factor(n).values())


def is_sum_two_squares(n: int) -> bool:
    if n == 0:
        return True
    return all(e % 2 == 0 for p, e in factor(n).items() if p % 4 == 3)


def r_squares(k: int, n: int) -> list[int]:
    theta = [0] * (n + 1)
    for m in range(-int(n**0.5) - 1, int(n**0.5) + 2):
        if m * m <= n:
            theta[m * m] += 1
    out = [1] + [0] * n
    for _ in range(k):
        new = [0] * (n + 1)
        for i, a in enumerate(out):
            if a:
                for j in range(0, n + 1 - i):
                    if theta[j]:
                        new[i + j] += a * theta[j]
        out = new
    return out


def is_practical(n: int) -> bool:
    f = sorted(factor(n).items())
    if n == 1:
        return True
    if f[0][0] != 2:
        return False
    prod_sigma = 1
    for p, e in f:
        if p > prod_sigma + 1:
            return False
        prod_sigma *= (p ** (e + 1) - 1) // (p - 1)
    return True


def records(values: Iterable[tuple[int, Fraction | int]]) -> Iterator[int]:
    best = None
    for n, v in values:
        if best is None or v > best:
            best = v
            yield n


def lucas_lehmer_exponents(limit: int) -> list[int]:
    out = []
    for p in primes():
        if p > limit:
            break
        if p == 2:
            out.append(2)
            continue
        m, s = (1 << p) - 1, 4
        for _ in range(p - 2):
            s = (s * s - 2) % m
        if s == 0:
            out.append(p)
    return out


def is_fermat_pseudoprime2(n: int) -> bool:
    return n > 2 and n % 2 == 1 and not is_prime(n) and pow(2, n - 1, n) == 1


def is_carmichael(n: int) -> bool:
    if n < 3 or n % 2 == 0 or is_prime(n):
        return False
    f = factor(n)
    return len(f) >= 2 and all(e == 1 for e in f.values()) and all((n - 1) % (p - 1) == 0 for p in f)


def carmichael_lambda(n: int) -> int:
    out = 1
    for p, e in factor(n).items():
        lam = 2 ** (e - 2) if p == 2 and e >= 3 else (p - 1) * p ** (e - 1)
        out = out * lam // math.gcd(out, lam)
    return out


def decimal_period_prime(p: int) -> int:
    if p in (2, 5):
        return 0
    k, r = 1, 10 % p
    while r != 1:
        r = r * 10 % p
        k += 1
    return k


def is_niven(n: int) -> bool:
    return n % digit_sum(n) == 0


def is_armstrong(n: int) -> bool:
    s = str(n)
    return n == sum(int(c) ** len(s) for c in s)


def is_kaprekar(n: int) -> bool:
    if n == 1:
        return True
    sq = str(n * n)
    for i in range(1, len(sq)):
        a, b = int(sq[:i]), int(sq[i:])
        if b > 0 and a + b == n:
            return True
    return False


def zeckendorf_terms(n: int) -> int:
    fibs = [1, 2]
    while fibs[-1] <= n:
        fibs.append(fibs[-1] + fibs[-2])
    c = 0
    for f in reversed(fibs):
        if f <= n:
            n -= f
            c += 1
    return c


def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def alcuin(n: int) -> int:
    return sum(1 for a in range(1, n) for b in range(a, n) if (c := n - a - b) >= b and a + b > c)


def robbins(n: int) -> int:
    num, den = 1, 1
    for k in range(n):
        num *= math.factorial(3 * k + 1)
        den *= math.factorial(n + k)
    return num // den


def entries() -> list[tuple[str, str, Iterable[int]]]:
    """(A-number, OEIS name, terms) for every sequence in the sample."""
    P = primes()
    phi_c = lambda: mpmath.phi  # noqa: E731
    E: list[tuple[str, str, Iterable[int]]] = [
        ("A000002", "Kolakoski sequence", kolakoski()),
        ("A000004", "The zero sequence", [0] * 80),
        ("A000005", "d(n) (also called tau(n) or sigma_0(n)), the number of divisors of n", f_of(ndiv, 1)),
        ("A000006", "Integer part of square root of n-th prime", (math.isqrt(p) for p in P)),
        ("A000007", "The characteristic function of {0}: a(n) = 0^n", [1] + [0] * 80),
        ("A000009", "Number of partitions of n into distinct parts", series_product(lambda k: [1] + [0] * (k - 1) + [1], 70)),
        ("A000010", "Euler totient function phi(n)", f_of(phi, 1)),
        ("A000012", "The simplest sequence of positive numbers: the all 1's sequence", [1] * 80),
        ("A000027", "The positive integers", count(1)),
        ("A000032", "Lucas numbers beginning at 2: L(n) = L(n-1) + L(n-2), L(0) = 2, L(1) = 1", lin([2, 1], [1, 1])),
        ("A000035", "Period 2: repeat [0, 1]; a(n) = n mod 2", f_of(lambda n: n % 2)),
        ("A000034", "Period 2: repeat [1, 2]", f_of(lambda n: 1 + n % 2)),
        ("A000040", "The prime numbers", P),
        ("A000041", "a(n) is the number of partitions of n (the partition numbers)", inv_series(70, lambda k: 1)),
        ("A000043", "Mersenne exponents: primes p such that 2^p - 1 is prime", lucas_lehmer_exponents(2300)),
        ("A000045", "Fibonacci numbers: F(n) = F(n-1) + F(n-2) with F(0) = 0 and F(1) = 1", lin([0, 1], [1, 1])),
        ("A000051", "a(n) = 2^n + 1", f_of(lambda n: 2**n + 1)),
        ("A000055", "Number of trees with n unlabeled nodes", free_trees(40)),
        ("A000058", "Sylvester's sequence: a(n+1) = a(n)^2 - a(n) + 1, with a(0) = 2", _sylvester()),
        ("A000069", "Odious numbers: numbers with an odd number of 1's in their binary expansion",
         where(lambda n: bin(n).count("1") % 2 == 1, 0)),
        ("A000070", "a(n) = Sum_{k=0..n} p(k) where p(k) = number of partitions of k",
         list(accumulate(inv_series(70, lambda k: 1)))),
        ("A000071", "a(n) = Fibonacci(n) - 1", f_of(lambda n: fib(n) - 1, 1)),
        ("A000073", "Tribonacci numbers: a(n) = a(n-1) + a(n-2) + a(n-3) with a(0)=a(1)=0, a(2)=1",
         lin([0, 0, 1], [1, 1, 1])),
        ("A000078", "Tetranacci numbers", lin([0, 0, 0, 1], [1, 1, 1, 1])),
        ("A000079", "Powers of 2: a(n) = 2^n", f_of(lambda n: 2**n)),
        ("A000081", "Number of unlabeled rooted trees with n nodes", rooted_trees(45)),
        ("A000085", "Number of self-inverse permutations on n letters, also known as involutions", involutions()),
        ("A000096", "a(n) = n*(n+3)/2", f_of(lambda n: n * (n + 3) // 2)),
        ("A000108", "Catalan numbers: C(n) = binomial(2n,n)/(n+1)", f_of(catalan)),
        ("A000110", "Bell or exponential numbers: number of ways to partition a set of n labeled elements", bell()),
        ("A000111", "Euler or up/down numbers: number of alternating permutations on n letters", zigzag()),
        ("A000120", "1's-counting sequence: number of 1's in binary expansion of n", f_of(lambda n: bin(n).count("1"))),
        ("A000122", "Expansion of Jacobi theta function theta_3(x) = Sum_{m=-oo..oo} x^(m^2)", r_squares(1, 120)),
        ("A000118", "Number of ways of writing n as a sum of 4 squares", r_squares(4, 60)),
        ("A000123", "Number of binary partitions: number of partitions of 2n into powers of 2", _binary_partitions(2)),
        ("A000124", "Central polygonal numbers (the Lazy Caterer's sequence): n(n+1)/2 + 1",
         f_of(lambda n: n * (n + 1) // 2 + 1)),
        ("A000125", "Cake numbers: maximal number of pieces resulting from n planar cuts through a cube",
         f_of(lambda n: (n**3 + 5 * n + 6) // 6)),
        ("A000129", "Pell numbers: a(0) = 0, a(1) = 1; for n > 1, a(n) = 2*a(n-1) + a(n-2)", lin([0, 1], [2, 1])),
        ("A000142", "Factorial numbers n! = 1*2*3*4*...*n", f_of(math.factorial)),
        ("A000143", "Number of ways of writing n as a sum of 8 squares", r_squares(8, 40)),
        ("A000165", "Double factorial of even numbers: (2n)!! = 2^n*n!", f_of(lambda n: 2**n * math.factorial(n))),
        ("A000166", "Subfactorial or rencontres numbers, or derangements", derangements()),
        ("A000169", "Number of labeled rooted trees with n nodes: n^(n-1)", f_of(lambda n: n ** (n - 1), 1)),
        ("A000172", "Franel number a(n) = Sum_{k = 0..n} binomial(n,k)^3",
         f_of(lambda n: sum(binom(n, k) ** 3 for k in range(n + 1)))),
        ("A000182", "Tangent (or \"Zag\") numbers", _tangent_numbers()),
        ("A000196", "Integer part of square root of n", f_of(math.isqrt)),
        ("A000201", "Lower Wythoff sequence (a Beatty sequence): a(n) = floor(n*phi)", _beatty(phi_c, 1)),
        ("A000203", "a(n) = sigma(n), the sum of the divisors of n", f_of(sigma, 1)),
        ("A000204", "Lucas numbers (beginning with 1): L(n) = L(n-1) + L(n-2) with L(1) = 1, L(2) = 3",
         lin([1, 3], [1, 1])),
        ("A000213", "Tribonacci numbers: a(n) = a(n-1) + a(n-2) + a(n-3) with a(0)=a(1)=a(2)=1",
         lin([1, 1, 1], [1, 1, 1])),
        ("A000215", "Fermat numbers: a(n) = 2^(2^n) + 1", f_of(lambda n: 2 ** (2**n) + 1)),
        ("A000217", "Triangular numbers: a(n) = binomial(n+1,2) = n*(n+1)/2", f_of(lambda n: n * (n + 1) // 2)),
        ("A000219", "Number of planar partitions (or plane partitions) of n", inv_series(50, lambda k: k)),
        ("A000225", "a(n) = 2^n - 1", f_of(lambda n: 2**n - 1)),
        ("A000244", "Powers of 3: a(n) = 3^n", f_of(lambda n: 3**n)),
        ("A000254", "Unsigned Stirling numbers of first kind, s(n+1,2)", f_of(lambda n: stirling1_unsigned(n + 1, 2))),
        ("A000255", "a(n) = n*a(n-1) + (n-1)*a(n-2), a(0) = 1, a(1) = 1", _a000255()),
        ("A000262", "Number of \"sets of lists\": number of partitions of {1,...,n} into any number of lists",
         _a000262()),
        ("A000265", "Remove all factors of 2 from n; or largest odd divisor of n", f_of(_odd_part, 1)),
        ("A000272", "Number of trees on n labeled nodes: n^(n-2) with a(0)=1", _cayley()),
        ("A000285", "a(0) = 1, a(1) = 4, and a(n) = a(n-1) + a(n-2) for n >= 2", lin([1, 4], [1, 1])),
        ("A000288", "Tetranacci numbers: a(n) = a(n-1) + a(n-2) + a(n-3) + a(n-4) with a(0)=a(1)=a(2)=a(3)=1",
         lin([1, 1, 1, 1], [1, 1, 1, 1])),
        ("A000290", "The squares: a(n) = n^2", f_of(lambda n: n * n)),
        ("A000292", "Tetrahedral (or triangular pyramidal) numbers: a(n) = C(n+2,3) = n*(n+1)*(n+2)/6",
         f_of(lambda n: n * (n + 1) * (n + 2) // 6)),
        ("A000295", "Eulerian numbers (Euler's triangle: column k=2 of A008292, column k=1 of A173018)",
         f_of(lambda n: 2**n - n - 1)),
        ("A000302", "Powers of 4: a(n) = 4^n", f_of(lambda n: 4**n)),
        ("A000312", "a(n) = n^n; number of labeled mappings from n points to themselves", f_of(lambda n: n**n)),
        ("A000322", "Pentanacci numbers: a(n) = a(n-1) + a(n-2) + a(n-3) + a(n-4) + a(n-5) with a(0)=...=a(4)=1",
         lin([1, 1, 1, 1, 1], [1, 1, 1, 1, 1])),
        ("A000325", "a(n) = 2^n - n", f_of(lambda n: 2**n - n)),
        ("A000326", "Pentagonal numbers: a(n) = n*(3*n-1)/2", f_of(lambda n: n * (3 * n - 1) // 2)),
        ("A000330", "Square pyramidal numbers: a(n) = 0^2 + 1^2 + 2^2 + ... + n^2 = n*(n+1)*(2*n+1)/6",
         f_of(lambda n: n * (n + 1) * (2 * n + 1) // 6)),
        ("A000332", "Binomial coefficient binomial(n,4) = n*(n-1)*(n-2)*(n-3)/24", f_of(lambda n: binom(n, 4))),
        ("A000337", "a(n) = (n-1)*2^n + 1", f_of(lambda n: (n - 1) * 2**n + 1)),
        ("A000351", "Powers of 5: a(n) = 5^n", f_of(lambda n: 5**n)),
        ("A000364", "Euler (or secant or \"Zig\") numbers: e.g.f. (even powers only) sec(x) = 1/cos(x)",
         islice(zigzag(), 0, None, 2)),
        ("A000367", "Numerators of Bernoulli numbers B_2n", (bernoulli(2 * n).numerator for n in range(40))),
        ("A000384", "Hexagonal numbers: a(n) = n*(2*n-1)", f_of(lambda n: n * (2 * n - 1))),
        ("A000389", "Binomial coefficients C(n,5)", f_of(lambda n: binom(n, 5))),
        ("A000392", "Stirling numbers of second kind S(n,3)", f_of(lambda n: stirling2(n, 3) if n >= 3 else 0, 1)),
        ("A000396", "Perfect numbers k: k is equal to the sum of the proper divisors of k",
         [2 ** (p - 1) * (2**p - 1) for p in lucas_lehmer_exponents(140)]),
        ("A000400", "Powers of 6: a(n) = 6^n", f_of(lambda n: 6**n)),
        ("A000420", "Powers of 7: a(n) = 7^n", f_of(lambda n: 7**n)),
        ("A000447", "a(n) = 1^2 + 3^2 + 5^2 + 7^2 + ... + (2*n-1)^2 = n*(4*n^2 - 1)/3",
         f_of(lambda n: n * (4 * n * n - 1) // 3)),
        ("A000523", "a(n) = floor(log_2(n))", f_of(lambda n: n.bit_length() - 1, 1)),
        ("A000537", "Sum of first n cubes; or n-th triangular number squared", f_of(lambda n: (n * (n + 1) // 2) ** 2)),
        ("A000538", "Sum of fourth powers: 0^4 + 1^4 + ... + n^4", _power_sums(4)),
        ("A000539", "Sum of 5th powers: 0^5 + 1^5 + 2^5 + ... + n^5", _power_sums(5)),
        ("A000540", "Sum of 6th powers: 0^6 + 1^6 + 2^6 + ... + n^6", _power_sums(6)),
        ("A000541", "Sum of 7th powers: 1^7 + 2^7 + ... + n^7", _power_sums(7)),
        ("A000542", "Sum of 8th powers: 1^8 + 2^8 + ... + n^8", _power_sums(8)),
        ("A000566", "Heptagonal numbers (or 7-gonal numbers): n*(5*n-3)/2", f_of(lambda n: n * (5 * n - 3) // 2)),
        ("A000567", "Octagonal numbers: n*(3*n-2)", f_of(lambda n: n * (3 * n - 2))),
        ("A000578", "The cubes: a(n) = n^3", f_of(lambda n: n**3)),
        ("A000579", "Binomial coefficient binomial(n,6)", f_of(lambda n: binom(n, 6))),
        ("A000580", "Binomial coefficient binomial(n,7)", f_of(lambda n: binom(n, 7))),
        ("A000581", "Binomial coefficient binomial(n,8)", f_of(lambda n: binom(n, 8))),
        ("A000582", "Binomial coefficient binomial(n,9)", f_of(lambda n: binom(n, 9))),
        ("A000583", "Fourth powers: a(n) = n^4", f_of(lambda n: n**4)),
        ("A000584", "Fifth powers: a(n) = n^5", f_of(lambda n: n**5)),
        ("A000593", "Sum of odd divisors of n", f_of(lambda n: sigma(_odd_part(n)), 1)),
        ("A000607", "Number of partitions of n into prime parts", inv_series(80, lambda k: 1 if is_prime(k) else 0)),
        ("A000668", "Mersenne primes (primes of the form 2^n - 1)", [2**p - 1 for p in lucas_lehmer_exponents(140)]),
        ("A000670", "Fubini numbers: number of preferential arrangements of n labeled elements", _fubini()),
        ("A000695", "Moser-de Bruijn sequence: sums of distinct powers of 4", f_of(lambda n: int(bin(n)[2:], 4))),
        ("A000712", "Generating function = Product_{m>=1} 1/(1 - x^m)^2", inv_series(60, lambda k: 1, reps=2)),
        ("A000720", "pi(n), the number of primes <= n", f_of(lambda n: sum(1 for p in P[:n] if p <= n), 1)),
        ("A000796", "Decimal expansion of Pi (or digits of Pi)", digits_of(lambda: mpmath.pi)),
        ("A000931", "Padovan sequence (or Padovan numbers): a(n) = a(n-2) + a(n-3) with a(0) = 1, a(1) = a(2) = 0",
         lin([1, 0, 0], [0, 1, 1])),
        ("A000930", "Narayana's cows sequence: a(0) = a(1) = a(2) = 1; thereafter a(n) = a(n-1) + a(n-3)",
         lin([1, 1, 1], [1, 0, 1])),
        ("A000957", "Fine's sequence (or Fine numbers)", _fine()),
        ("A000959", "Lucky numbers", lucky()),
        ("A000960", "Flavius Josephus's sieve", josephus_flavius()),
        ("A000961", "Powers of primes. Alternatively, 1 and the prime powers (p^k, p prime, k >= 1)",
         where(lambda n: n == 1 or len(factor(n)) == 1)),
        ("A000982", "a(n) = ceiling(n^2/2)", f_of(lambda n: (n * n + 1) // 2)),
        ("A000984", "Central binomial coefficients: binomial(2*n,n) = (2*n)!/(n!)^2", f_of(lambda n: binom(2 * n, n))),
        ("A001003", "Schroeder's second problem (generalized parentheses); also called super-Catalan numbers or "
         "little Schroeder numbers", schroeder_small()),
        ("A001006", "Motzkin numbers: number of ways of drawing any number of nonintersecting chords joining n "
         "(labeled) points on a circle", motzkin()),
        ("A001008", "Numerators of harmonic numbers H(n) = Sum_{i=1..n} 1/i", (harmonic(n).numerator for n in count(1))),
        ("A001014", "Sixth powers: a(n) = n^6", f_of(lambda n: n**6)),
        ("A001015", "Seventh powers: a(n) = n^7", f_of(lambda n: n**7)),
        ("A001016", "Eighth powers: a(n) = n^8", f_of(lambda n: n**8)),
        ("A001017", "Ninth powers: a(n) = n^9", f_of(lambda n: n**9)),
        ("A001018", "Powers of 8: a(n) = 8^n", f_of(lambda n: 8**n)),
        ("A001019", "Powers of 9: a(n) = 9^n", f_of(lambda n: 9**n)),
        ("A001037", "Number of degree-n irreducible polynomials over GF(2)", _irreducible_gf2()),
        ("A001045", "Jacobsthal sequence: a(n) = a(n-1) + 2*a(n-2), with a(0) = 0, a(1) = 1", lin([0, 1], [1, 2])),
        ("A001047", "a(n) = 3^n - 2^n", f_of(lambda n: 3**n - 2**n)),
        ("A001055", "The multiplicative partition function: number of ways of factoring n with all factors greater "
         "than 1", f_of(lambda n: _mult_partitions(n, n), 1)),
        ("A001065", "Sum of proper divisors (or aliquot parts) of n", f_of(lambda n: sigma(n) - n, 1)),
        ("A001075", "a(0) = 1, a(1) = 2, a(n) = 4*a(n-1) - a(n-2)", lin([1, 2], [4, -1])),
        ("A001076", "Denominators of continued fraction convergents to sqrt(5)", lin([0, 1], [4, 1])),
        ("A001097", "Twin primes", [p for p in P[:3000] if is_prime(p - 2) or is_prime(p + 2)]),
        ("A001105", "a(n) = 2*n^2", f_of(lambda n: 2 * n * n)),
        ("A001106", "9-gonal (or enneagonal or nonagonal) numbers: a(n) = n*(7*n-5)/2", f_of(lambda n: n * (7 * n - 5) // 2)),
        ("A001107", "10-gonal (or decagonal) numbers: a(n) = n*(4*n-3)", f_of(lambda n: n * (4 * n - 3))),
        ("A001109", "a(n)^2 is a triangular number: a(n) = 6*a(n-1) - a(n-2) with a(0)=0, a(1)=1", lin([0, 1], [6, -1])),
        ("A001110", "Square triangular numbers: numbers that are both triangular and square",
         (v * v for v in lin([0, 1], [6, -1]))),
        ("A001113", "Decimal expansion of e", digits_of(lambda: mpmath.e)),
        ("A001146", "a(n) = 2^(2^n)", f_of(lambda n: 2 ** (2**n))),
        ("A001147", "Double factorial of odd numbers: a(n) = (2*n-1)!! = 1*3*5*...*(2*n-1)", _double_odd()),
        ("A001157", "a(n) = sigma_2(n): sum of squares of divisors of n", f_of(lambda n: sigma(n, 2), 1)),
        ("A001158", "sigma_3(n): sum of cubes of divisors of n", f_of(lambda n: sigma(n, 3), 1)),
        ("A001187", "Number of connected labeled graphs with n nodes", connected_labeled_graphs(25)),
        ("A001190", "Wedderburn-Etherington numbers: unlabeled binary rooted trees", wedderburn(60)),
        ("A001203", "Simple continued fraction expansion of Pi", cfrac_of(lambda: mpmath.pi, 80)),
        ("A001221", "Number of distinct primes dividing n (also called omega(n))", f_of(lambda n: len(factor(n)), 1)),
        ("A001222", "Number of prime divisors of n counted with multiplicity (also called big omega of n)",
         f_of(lambda n: sum(factor(n).values()), 1)),
        ("A001223", "Prime gaps: differences between consecutive primes", (b - a for a, b in zip(P, P[1:], strict=False))),
        ("A001227", "Number of odd divisors of n", f_of(lambda n: ndiv(_odd_part(n)), 1)),
        ("A001246", "Squares of Catalan numbers", f_of(lambda n: catalan(n) ** 2)),
        ("A001248", "Squares of primes", (p * p for p in P)),
        ("A001316", "Gould's sequence: number of odd entries in row n of Pascal's triangle", f_of(lambda n: 2 ** bin(n).count("1"))),
        ("A001333", "Numerators of continued fraction convergents to sqrt(2)", lin([1, 1], [2, 1])),
        ("A001353", "a(n) = 4*a(n-1) - a(n-2) with a(0) = 0, a(1) = 1", lin([0, 1], [4, -1])),
        ("A001358", "Semiprimes (or biprimes): products of two primes", where(lambda n: sum(factor(n).values()) == 2, 2)),
        ("A001359", "Lesser of twin primes", (p for p in P if is_prime(p + 2))),
        ("A001399", "a(n) is the number of partitions of n into at most 3 parts", _parts_at_most(3)),
        ("A001400", "Number of partitions of n into at most 4 parts", _parts_at_most(4)),
        ("A001405", "a(n) = binomial(n, floor(n/2))", f_of(lambda n: binom(n, n // 2))),
        ("A001462", "Golomb's sequence: a(n) is the number of times n occurs, starting with a(1) = 1", golomb()),
        ("A001477", "The nonnegative integers", count(0)),
        ("A001481", "Numbers of the form x^2 + y^2", where(is_sum_two_squares, 0)),
        ("A001511", "The ruler function: 2^a(n) divides 2n", f_of(lambda n: _v2(2 * n), 1)),
        ("A001519", "a(n) = 3*a(n-1) - a(n-2) for n >= 2, with a(0) = a(1) = 1", lin([1, 1], [3, -1])),
        ("A001541", "a(0) = 1, a(1) = 3; for n > 1, a(n) = 6*a(n-1) - a(n-2)", lin([1, 3], [6, -1])),
        ("A001542", "a(n) = 6*a(n-1) - a(n-2) for n > 1, a(0)=0 and a(1)=2", lin([0, 2], [6, -1])),
        ("A001567", "Fermat pseudoprimes to base 2, also called Sarrus numbers or Poulet numbers",
         where(is_fermat_pseudoprime2, 3)),
        ("A001597", "Perfect powers: m^k where m > 0 and k >= 2", where(is_perfect_power, 1)),
        ("A001599", "Harmonic or Ore numbers: numbers n such that the harmonic mean of the divisors of n is an integer",
         where(lambda n: (n * ndiv(n)) % sigma(n) == 0, 1)),
        ("A001608", "Perrin sequence: a(n) = a(n-2) + a(n-3) with a(0) = 3, a(1) = 0, a(2) = 2", lin([3, 0, 2], [0, 1, 1])),
        ("A001615", "Dedekind psi function: n * Product_{p|n, p prime} (1 + 1/p)", f_of(_dedekind_psi, 1)),
        ("A001620", "Decimal expansion of Euler's constant (or the Euler-Mascheroni constant), gamma",
         digits_of(lambda: mpmath.euler)),
        ("A001622", "Decimal expansion of golden ratio phi (or tau) = (1 + sqrt(5))/2", digits_of(phi_c)),
        ("A001653", "Numbers k such that 2*k^2 - 1 is a square", lin([1, 5], [6, -1])),
        ("A001694", "Powerful numbers: if a prime p divides n then p^2 must also divide n",
         where(lambda n: all(e >= 2 for e in factor(n).values()), 1)),
        ("A001700", "a(n) = binomial(2*n+1, n+1)", f_of(lambda n: binom(2 * n + 1, n + 1))),
        ("A001764", "a(n) = binomial(3*n,n)/(2*n+1) (enumerates ternary trees and also noncrossing trees)",
         f_of(lambda n: binom(3 * n, n) // (2 * n + 1))),
        ("A001787", "a(n) = n*2^(n-1)", f_of(lambda n: n * 2 ** (n - 1) if n else 0)),
        ("A001788", "a(n) = n*(n+1)*2^(n-2)", f_of(lambda n: n * (n + 1) * 2**n // 4)),
        ("A001791", "a(n) = binomial coefficient C(2n, n-1)", f_of(lambda n: binom(2 * n, n - 1))),
        ("A001835", "a(n) = 4*a(n-1) - a(n-2), with a(0) = 1, a(1) = 1", lin([1, 1], [4, -1])),
        ("A001844", "Centered square numbers: a(n) = 2*n*(n+1)+1", f_of(lambda n: 2 * n * (n + 1) + 1)),
        ("A001850", "Central Delannoy numbers: a(n) = Sum_{k=0..n} C(n,k)*C(n+k,k)",
         f_of(lambda n: sum(binom(n, k) * binom(n + k, k) for k in range(n + 1)))),
        ("A001906", "F(2n) = bisection of Fibonacci sequence: a(n) = 3*a(n-1) - a(n-2)", lin([0, 1], [3, -1])),
        ("A001911", "a(n) = Fibonacci(n+3) - 2", f_of(lambda n: fib(n + 3) - 2)),
        ("A001913", "Full reptend primes: primes with primitive root 10",
         (p for p in P if p > 5 and decimal_period_prime(p) == p - 1)),
        ("A001950", "Upper Wythoff sequence (a Beatty sequence): a(n) = floor(n*phi^2)",
         _beatty(lambda: mpmath.phi**2, 1)),
        ("A001969", "Evil numbers: nonnegative integers with an even number of 1's in their binary expansion",
         where(lambda n: bin(n).count("1") % 2 == 0, 0)),
        ("A002061", "Central polygonal numbers: a(n) = n^2 - n + 1", f_of(lambda n: n * n - n + 1)),
        ("A002088", "Sum of totient function: a(n) = Sum_{k=1..n} phi(k)", _cumsum(phi, 1, first=0)),
        ("A002093", "Highly abundant numbers: numbers k such that sigma(k) > sigma(m) for all m < k",
         records((n, sigma(n)) for n in range(1, 60_000))),
        ("A002110", "Primorial numbers (first definition): product of first n primes", _primorials()),
        ("A002113", "Palindromes in base 10", where(lambda n: str(n) == str(n)[::-1], 0)),
        ("A002117", "Decimal expansion of zeta(3) = Sum_{m>=1} 1/m^3", digits_of(lambda: mpmath.zeta(3))),
        ("A002144", "Pythagorean primes: primes of the form 4*k + 1", (p for p in P if p % 4 == 1)),
        ("A002145", "Primes of the form 4*k + 3", (p for p in P if p % 4 == 3)),
        ("A002162", "Decimal expansion of the natural logarithm of 2", digits_of(lambda: mpmath.log(2))),
        ("A002163", "Decimal expansion of square root of 5", digits_of(lambda: mpmath.sqrt(5))),
        ("A002182", "Highly composite numbers: numbers n where d(n), the number of divisors of n, increases to a "
         "record", records((n, ndiv(n)) for n in range(1, 60_000))),
        ("A002193", "Decimal expansion of square root of 2", digits_of(lambda: mpmath.sqrt(2))),
        ("A002194", "Decimal expansion of sqrt(3)", digits_of(lambda: mpmath.sqrt(3))),
        ("A002203", "Companion Pell numbers: a(n) = 2*a(n-1) + a(n-2), a(0) = a(1) = 2", lin([2, 2], [2, 1])),
        ("A002210", "Decimal expansion of Khinchin's constant", digits_of(lambda: mpmath.khinchin, 100)),
        ("A002275", "Repunits: (10^n - 1)/9. Often denoted by R_n", f_of(lambda n: (10**n - 1) // 9)),
        ("A002315", "NSW numbers: a(n) = 6*a(n-1) - a(n-2); also a(n)^2 - 2*b(n)^2 = -1 with b(n)=A001653(n+1)",
         lin([1, 7], [6, -1])),
        ("A002321", "Mertens's function: Sum_{k=1..n} mu(k), where mu is the Moebius function", _cumsum(mobius, 1)),
        ("A002322", "Reduced totient function psi(n): least k such that x^k == 1 (mod n) for all x prime to n; "
         "also known as the Carmichael lambda function", f_of(carmichael_lambda, 1)),
        ("A002378", "Oblong (or promic, pronic, or heteromecic) numbers: a(n) = n*(n+1)", f_of(lambda n: n * (n + 1))),
        ("A002385", "Palindromic primes: prime numbers whose decimal expansion is a palindrome",
         (p for p in P if str(p) == str(p)[::-1])),
        ("A002388", "Decimal expansion of Pi^2", digits_of(lambda: mpmath.pi**2)),
        ("A002392", "Decimal expansion of natural logarithm of 10", digits_of(lambda: mpmath.log(10))),
        ("A002411", "Pentagonal pyramidal numbers: a(n) = n^2*(n+1)/2", f_of(lambda n: n * n * (n + 1) // 2)),
        ("A002412", "Hexagonal pyramidal numbers, or greengrocer's numbers", f_of(lambda n: n * (n + 1) * (4 * n - 1) // 6)),
        ("A002415", "4-dimensional pyramidal numbers: a(n) = n^2*(n^2-1)/12", f_of(lambda n: n * n * (n * n - 1) // 12)),
        ("A002426", "Central trinomial coefficients: largest coefficient of (1 + x + x^2)^n",
         f_of(lambda n: sum(binom(n, 2 * k) * binom(2 * k, k) for k in range(n // 2 + 1)))),
        ("A002445", "Denominators of Bernoulli numbers B_{2n}", (bernoulli(2 * n).denominator for n in range(60))),
        ("A002450", "a(n) = (4^n - 1)/3", f_of(lambda n: (4**n - 1) // 3)),
        ("A002457", "a(n) = (2n+1)!/n!^2", f_of(lambda n: math.factorial(2 * n + 1) // math.factorial(n) ** 2)),
        ("A002473", "7-smooth numbers: positive numbers whose prime divisors are all <= 7",
         where(lambda n: all(p <= 7 for p in factor(n)), 1)),
        ("A002476", "Primes of the form 6m + 1", (p for p in P if p % 6 == 1)),
        ("A002620", "Quarter-squares: a(n) = floor(n/2)*ceiling(n/2)", f_of(lambda n: n * n // 4)),
        ("A002808", "The composite numbers: numbers n of the form x*y for x > 1 and y > 1",
         where(lambda n: n > 3 and not is_prime(n), 4)),
        ("A002819", "Liouville's function L(n) = partial sums of A008836", _cumsum(_liouville, 1)),
        ("A002852", "Continued fraction for Euler's constant (or Euler-Mascheroni constant) gamma",
         cfrac_of(lambda: mpmath.euler, 70)),
        ("A002865", "Number of partitions of n that do not contain 1 as a part",
         inv_series(80, lambda k: 0 if k == 1 else 1)),
        ("A002893", "a(n) = Sum_{k=0..n} binomial(n,k)^2 * binomial(2*k,k)",
         f_of(lambda n: sum(binom(n, k) ** 2 * binom(2 * k, k) for k in range(n + 1)))),
        ("A002894", "a(n) = binomial(2n, n)^2", f_of(lambda n: binom(2 * n, n) ** 2)),
        ("A002895", "Domb numbers: number of 2n-step polygons on diamond lattice",
         f_of(lambda n: sum(binom(n, k) ** 2 * binom(2 * k, k) * binom(2 * n - 2 * k, n - k) for k in range(n + 1)))),
        ("A002897", "a(n) = binomial(2n,n)^3", f_of(lambda n: binom(2 * n, n) ** 3)),
        ("A002997", "Carmichael numbers: composite numbers k such that a^(k-1) == 1 (mod k) for every a coprime to k",
         where(is_carmichael, 3)),
        ("A003188", "Decimal equivalent of Gray code for n", f_of(lambda n: n ^ (n >> 1))),
        ("A003215", "Hex (or centered hexagonal) numbers: 3*n*(n+1)+1", f_of(lambda n: 3 * n * (n + 1) + 1)),
        ("A003415", "a(n) = n' = arithmetic derivative of n", f_of(_arith_derivative)),
        ("A003417", "Continued fraction for e", cfrac_of(lambda: mpmath.e, 80)),
        ("A003418", "Least common multiple (or LCM) of {1, 2, ..., n} for n >= 1, a(0) = 1", _lcm_seq()),
        ("A003462", "a(n) = (3^n - 1)/2", f_of(lambda n: (3**n - 1) // 2)),
        ("A003557", "n divided by largest squarefree divisor of n", f_of(lambda n: n // _rad(n), 1)),
        ("A003586", "3-smooth numbers: numbers of the form 2^i*3^j with i, j >= 0",
         where(lambda n: all(p <= 3 for p in factor(n)), 1)),
        ("A003602", "Kimberling's paraphrases: if n = (2k-1)*2^m then a(n) = k", f_of(lambda n: (_odd_part(n) + 1) // 2, 1)),
        ("A003627", "Primes of the form 3k-1", (p for p in P if p % 3 == 2)),
        ("A003714", "Fibbinary numbers: if n = F(i1) + F(i2) + ... + F(ik) is the Zeckendorf representation of n "
         "then a(n) = 2^(i1 - 2) + 2^(i2 - 2) + ... + 2^(ik - 2)", where(lambda n: n & (n >> 1) == 0, 0)),
        ("A003849", "The infinite Fibonacci word", _fibonacci_word()),
        ("A003881", "Decimal expansion of Pi/4", digits_of(lambda: mpmath.pi / 4)),
        ("A004001", "Hofstadter-Conway 10000-dollar sequence: a(n) = a(a(n-1)) + a(n-a(n-1)) with a(1) = a(2) = 1",
         conway_10000()),
        ("A004018", "Theta series of square lattice (or number of ways of writing n as a sum of 2 squares)",
         r_squares(2, 100)),
        ("A004086", "Read n backwards (referred to as R(n) in many sequences)", f_of(lambda n: int(str(n)[::-1]))),
        ("A004215", "Numbers that are the sum of 4 but no fewer nonzero squares", where(_needs_four_squares, 1)),
        ("A004394", "Superabundant numbers: numbers n such that sigma(n)/n > sigma(m)/m for all m < n",
         records((n, Fraction(sigma(n), n)) for n in range(1, 60_000))),
        ("A004526", "Nonnegative integers repeated, floor(n/2)", f_of(lambda n: n // 2)),
        ("A004767", "a(n) = 4*n + 3", f_of(lambda n: 4 * n + 3)),
        ("A005043", "Riordan numbers: a(n) = (n-1)*(2*a(n-1) + 3*a(n-2))/(n+1)", _riordan()),
        ("A005044", "Alcuin's sequence: expansion of x^3/((1-x^2)*(1-x^3)*(1-x^4))", f_of(alcuin, 3)),
        ("A005100", "Deficient numbers: numbers k such that sigma(k) < 2k", where(lambda n: sigma(n) < 2 * n, 1)),
        ("A005101", "Abundant numbers (sum of divisors of m exceeds 2m)", where(lambda n: sigma(n) > 2 * n, 1)),
        ("A005117", "Squarefree numbers: numbers that are not divisible by a square greater than 1",
         where(is_squarefree, 1)),
        ("A005130", "Robbins numbers: a(n) = Product_{k=0..n-1} (3k+1)!/(n+k)!", f_of(robbins)),
        ("A005132", "Recaman's sequence", recaman()),
        ("A005153", "Practical numbers: positive integers m such that every k <= sigma(m) is a sum of distinct "
         "divisors of m", where(is_practical, 1)),
        ("A005185", "Hofstadter Q-sequence: a(1) = a(2) = 1; a(n) = a(n-a(n-1)) + a(n-a(n-2)) for n > 2",
         hofstadter_q()),
        ("A005187", "a(n) = a(floor(n/2)) + n; also denominators in expansion of 1/sqrt(1-x) are 2^a(n)",
         f_of(lambda n: 2 * n - bin(n).count("1"))),
        ("A005188", "Armstrong (or pluperfect, or Plus Perfect, or narcissistic) numbers",
         [n for n in range(1, 10**5) if is_armstrong(n)]),
        ("A005206", "Hofstadter G-sequence: a(n) = n - a(a(n-1))", hofstadter_g()),
        ("A005228", "Sequence and first differences (A030124) together list all positive numbers exactly once",
         figure_figure()),
        ("A005258", "Apery numbers: a(n) = Sum_{k=0..n} binomial(n,k)^2 * binomial(n+k,k)",
         f_of(lambda n: sum(binom(n, k) ** 2 * binom(n + k, k) for k in range(n + 1)))),
        ("A005259", "Apery (Apéry) numbers: Sum_{k=0..n} (binomial(n,k)*binomial(n+k,k))^2",
         f_of(lambda n: sum((binom(n, k) * binom(n + k, k)) ** 2 for k in range(n + 1)))),
        ("A005260", "a(n) = Sum_{k = 0..n} binomial(n,k)^4", f_of(lambda n: sum(binom(n, k) ** 4 for k in range(n + 1)))),
        ("A005349", "Niven (or Harshad, or harshad) numbers: numbers that are divisible by the sum of their digits",
         where(is_niven, 1)),
        ("A005382", "Primes p such that 2p-1 is also prime", (p for p in P if is_prime(2 * p - 1))),
        ("A005384", "Sophie Germain primes p: 2p+1 is also prime", (p for p in P if is_prime(2 * p + 1))),
        ("A005385", "Safe primes p: (p-1)/2 is also prime", (p for p in P if p > 2 and is_prime((p - 1) // 2))),
        ("A005408", "The odd numbers: a(n) = 2*n + 1", f_of(lambda n: 2 * n + 1)),
        ("A005448", "Centered triangular numbers: a(n) = 3n(n-1)/2 + 1", f_of(lambda n: 3 * n * (n - 1) // 2 + 1, 1)),
        ("A005728", "Number of fractions in Farey series of order n", _cumsum(phi, 1, first=1)),
        ("A005809", "a(n) = binomial(3n,n)", f_of(lambda n: binom(3 * n, n))),
        ("A005810", "a(n) = binomial(4n,n)", f_of(lambda n: binom(4 * n, n))),
        ("A005836", "Numbers whose base-3 representation contains no 2", where(lambda n: "2" not in _base(n, 3), 0)),
        ("A005843", "The nonnegative even numbers: a(n) = 2n", f_of(lambda n: 2 * n)),
        ("A005875", "Theta series of simple cubic lattice; also number of ways of writing a nonnegative integer n "
         "as a sum of 3 squares (zero being allowed)", r_squares(3, 90)),
        ("A005891", "Centered pentagonal numbers: (5n^2+5n+2)/2", f_of(lambda n: (5 * n * n + 5 * n + 2) // 2)),
        ("A005898", "Centered cube numbers: n^3 + (n+1)^3", f_of(lambda n: n**3 + (n + 1) ** 3)),
        ("A005900", "Octahedral numbers: a(n) = n*(2*n^2 + 1)/3", f_of(lambda n: n * (2 * n * n + 1) // 3)),
        ("A005935", "Pseudoprimes to base 3", where(lambda n: n > 3 and not is_prime(n) and pow(3, n - 1, n) == 1, 4)),
        ("A006003", "a(n) = n*(n^2 + 1)/2", f_of(lambda n: n * (n * n + 1) // 2)),
        ("A006046", "Total number of odd entries in first n rows of Pascal's triangle", _cumsum(
            lambda n: 2 ** bin(n).count("1"), 0, first=0)),
        ("A006068", "a(n) is Gray-coded into n", f_of(_inverse_gray)),
        ("A006093", "a(n) = prime(n) - 1", (p - 1 for p in P)),
        ("A006125", "a(n) = 2^(n*(n-1)/2)", f_of(lambda n: 2 ** (n * (n - 1) // 2))),
        ("A006134", "a(n) = Sum_{k=0..n} binomial(2*k,k)", _cumsum(lambda k: binom(2 * k, k), 0)),
        ("A006190", "a(n) = 3*a(n-1) + a(n-2), with a(0)=0, a(1)=1", lin([0, 1], [3, 1])),
        ("A006218", "a(n) = Sum_{k=1..n} floor(n/k)", _cumsum(ndiv, 1, first=0)),
        ("A006318", "Large Schroeder numbers", schroeder_large()),
        ("A006480", "De Bruijn's S(3,n): (3n)!/(n!)^3", f_of(lambda n: math.factorial(3 * n) // math.factorial(n) ** 3)),
        ("A006512", "Greater of twin primes", (p + 2 for p in P if is_prime(p + 2))),
        ("A006516", "a(n) = 2^(n-1)*(2^n - 1), n >= 0", f_of(lambda n: (2**n - 1) * 2**n // 2)),
        ("A006519", "Highest power of 2 dividing n", f_of(lambda n: n & -n, 1)),
        ("A006530", "Gpf(n): greatest prime dividing n, for n >= 2; a(1)=1", f_of(lambda n: max(factor(n), default=1), 1)),
        ("A006564", "Icosahedral numbers: a(n) = n*(5*n^2 - 5*n + 2)/2", f_of(lambda n: n * (5 * n * n - 5 * n + 2) // 2)),
        ("A006566", "Dodecahedral numbers: a(n) = n*(3*n - 1)*(3*n - 2)/2", f_of(lambda n: n * (3 * n - 1) * (3 * n - 2) // 2)),
        ("A006567", "Emirps (primes whose reversal is a different prime)",
         (p for p in P if str(p) != str(p)[::-1] and is_prime(int(str(p)[::-1])))),
        ("A006577", "Number of halving and tripling steps to reach 1 in '3x+1' problem", f_of(collatz_steps, 1)),
        ("A006752", "Decimal expansion of Catalan's constant", digits_of(lambda: mpmath.catalan)),
        ("A006881", "Squarefree semiprimes: Numbers that are the product of two distinct primes",
         where(lambda n: sorted(factor(n).values()) == [1, 1], 2)),
        ("A006882", "Double factorials n!!: a(n) = n*a(n-2) for n > 1, a(0) = a(1) = 1", _double_factorials()),
        ("A006886", "Kaprekar numbers", where(is_kaprekar, 1)),
        ("A007088", "The binary numbers (or binary words, or binary vectors, or binary expansion of n)",
         f_of(lambda n: int(bin(n)[2:]))),
        ("A007089", "Numbers in base 3", f_of(lambda n: int(_base(n, 3)))),
        ("A007097", "Primeth recurrence: a(n+1) = a(n)-th prime", _primeth()),
        ("A007304", "Sphenic numbers: products of 3 distinct primes",
         where(lambda n: sorted(factor(n).values()) == [1, 1, 1], 2)),
        ("A007318", "Pascal's triangle read by rows: C(n,k) = binomial(n,k) = n!/(k!*(n-k)!), 0 <= k <= n",
         (binom(n, k) for n in range(40) for k in range(n + 1))),
        ("A007434", "Jordan function J_2(n) (a generalization of phi(n))", f_of(_jordan2, 1)),
        ("A007504", "Sum of the first n primes", _cumsum(lambda k: P[k - 1], 1, first=0)),
        ("A007519", "Primes of form 8n+1", (p for p in P if p % 8 == 1)),
        ("A007520", "Primes == 3 (mod 8)", (p for p in P if p % 8 == 3)),
        ("A007521", "Primes of the form 8k + 5", (p for p in P if p % 8 == 5)),
        ("A007522", "Primes of the form 8n+7", (p for p in P if p % 8 == 7)),
        ("A007588", "Stella octangula numbers: a(n) = n*(2*n^2 - 1)", f_of(lambda n: n * (2 * n * n - 1))),
        ("A007598", "Squared Fibonacci numbers", (v * v for v in lin([0, 1], [1, 1]))),
        ("A007691", "Multiply-perfect numbers: n divides sigma(n)", where(lambda n: sigma(n) % n == 0, 1)),
        ("A007770", "Happy numbers: numbers whose trajectory under iteration of sum of squares of digits map "
         "includes 1", where(is_happy, 1)),
        ("A007814", "Exponent of highest power of 2 dividing n, a.k.a. the binary carry sequence, the ruler "
         "sequence, or the 2-adic valuation of n", f_of(_v2, 1)),
        ("A007895", "Number of terms in the Zeckendorf representation of n", f_of(zeckendorf_terms)),
        ("A007913", "Squarefree part of n: a(n) is the smallest positive number m such that n/m is a square",
         f_of(lambda n: math.prod(p for p, e in factor(n).items() if e % 2), 1)),
        ("A007916", "Numbers that are not perfect powers", where(lambda n: not is_perfect_power(n), 2)),
        ("A007947", "Largest squarefree number dividing n: the squarefree kernel of n, rad(n), radical of n",
         f_of(_rad, 1)),
        ("A007953", "Digital sum (i.e., sum of digits) of n; also called digsum(n)", f_of(digit_sum)),
        ("A008277", "Triangle of Stirling numbers of the second kind, S2(n,k), n >= 1, 1 <= k <= n",
         (stirling2(n, k) for n in range(1, 30) for k in range(1, n + 1))),
        ("A008292", "Triangle of Eulerian numbers T(n,k) (n >= 1, 1 <= k <= n) read by rows",
         (_eulerian(n, k) for n in range(1, 30) for k in range(1, n + 1))),
        ("A008472", "Sum of the distinct primes dividing n", f_of(lambda n: sum(factor(n)), 1)),
        ("A008578", "Prime numbers at the beginning of the 20th century (today 1 is no longer regarded as a prime)",
         [1] + P[:200]),
        ("A008585", "a(n) = 3*n", f_of(lambda n: 3 * n)),
        ("A008586", "Multiples of 4", f_of(lambda n: 4 * n)),
        ("A008587", "Multiples of 5", f_of(lambda n: 5 * n)),
        ("A008588", "Nonnegative multiples of 6", f_of(lambda n: 6 * n)),
        ("A008589", "Multiples of 7", f_of(lambda n: 7 * n)),
        ("A008590", "Multiples of 8", f_of(lambda n: 8 * n)),
        ("A008591", "Multiples of 9", f_of(lambda n: 9 * n)),
        ("A008592", "Multiples of 10: a(n) = 10 * n", f_of(lambda n: 10 * n)),
        ("A008619", "Positive integers repeated", f_of(lambda n: n // 2 + 1)),
        ("A008683", "Moebius (or Mobius) function mu(n)", f_of(mobius, 1)),
        ("A008833", "Largest square dividing n", f_of(lambda n: math.prod(p ** (e - e % 2) for p, e in factor(n).items()), 1)),
        ("A008836", "Liouville's function lambda(n) = (-1)^k, where k is number of primes dividing n (counted with "
         "multiplicity)", f_of(_liouville, 1)),
        ("A008864", "a(n) = prime(n) + 1", (p + 1 for p in P)),
        ("A010060", "Thue-Morse sequence", f_of(lambda n: bin(n).count("1") % 2)),
        ("A010888", "Digital root of n", f_of(lambda n: 0 if n == 0 else 1 + (n - 1) % 9)),
        ("A011371", "a(n) = n minus (number of 1's in binary expansion of n)", f_of(lambda n: n - bin(n).count("1"))),
        ("A011557", "Powers of 10: a(n) = 10^n", f_of(lambda n: 10**n)),
        ("A011782", "Number of compositions (ordered partitions) of n", [1] + [2 ** (n - 1) for n in range(1, 80)]),
        ("A013661", "Decimal expansion of Pi^2/6 = zeta(2) = Sum_{m>=1} 1/m^2", digits_of(lambda: mpmath.pi**2 / 6)),
        ("A013631", "Continued fraction for zeta(3)", cfrac_of(lambda: mpmath.zeta(3), 60)),
        ("A014551", "Jacobsthal-Lucas numbers", lin([2, 1], [1, 2])),
        ("A014538", "Continued fraction for Catalan's constant", cfrac_of(lambda: mpmath.catalan, 60)),
        ("A014688", "a(n) = n-th prime + n", (p + i for i, p in enumerate(P, 1))),
        ("A014689", "a(n) = prime(n)-n, the number of nonprimes less than prime(n)", (p - i for i, p in enumerate(P, 1))),
        ("A016730", "Continued fraction for log(2)", cfrac_of(lambda: mpmath.log(2), 60)),
        ("A016754", "Odd squares: a(n) = (2n+1)^2", f_of(lambda n: (2 * n + 1) ** 2)),
        ("A016777", "a(n) = 3*n + 1", f_of(lambda n: 3 * n + 1)),
        ("A016789", "a(n) = 3*n + 2", f_of(lambda n: 3 * n + 2)),
        ("A016813", "a(n) = 4*n + 1", f_of(lambda n: 4 * n + 1)),
        ("A018252", "The nonprime numbers: 1 together with the composite numbers", where(lambda n: not is_prime(n), 1)),
        ("A018819", "Binary partition function: number of partitions of n into powers of 2", _binary_partitions(1)),
        ("A019692", "Decimal expansion of 2*Pi", digits_of(lambda: 2 * mpmath.pi)),
        ("A020639", "Lpf(n): least prime dividing n (when n > 1); a(1) = 1", f_of(lambda n: min(factor(n), default=1), 1)),
        ("A023200", "Primes p such that p + 4 is also prime", (p for p in P if is_prime(p + 4))),
        ("A023201", "Primes p such that p + 6 is also prime. (Lesser of a pair of sexy primes.)",
         (p for p in P if is_prime(p + 6))),
        ("A023416", "Number of 0's in binary expansion of n", f_of(lambda n: bin(n)[2:].count("0"))),
        ("A024450", "Sum of squares of the first n primes", _cumsum(lambda k: P[k - 1] ** 2, 1)),
        ("A024916", "a(n) = Sum_{k=1..n} k*floor(n/k); also Sum_{k=1..n} sigma(k)", _cumsum(sigma, 1)),
        ("A025475", "1 and the prime powers p^m where m >= 2, thus excluding the primes",
         where(lambda n: n == 1 or (len(factor(n)) == 1 and not is_prime(n)), 1)),
        ("A027641", "Numerator of Bernoulli number B_n", (bernoulli(n).numerator for n in range(60))),
        ("A027642", "Denominator of Bernoulli number B_n", (bernoulli(n).denominator for n in range(60))),
        ("A028982", "Squares and twice squares", where(lambda n: math.isqrt(n) ** 2 == n or (
            n % 2 == 0 and math.isqrt(n // 2) ** 2 == n // 2), 1)),
        ("A029837", "Binary order of n: log_2(n) rounded up to next integer", f_of(lambda n: (n - 1).bit_length(), 1)),
        ("A030078", "Cubes of primes", (p**3 for p in P)),
        ("A030101", "a(n) is the number produced when n is converted to binary digits, the binary digits are "
         "reversed and then converted back into a decimal number", f_of(lambda n: int(bin(n)[2:][::-1], 2))),
        ("A033286", "a(n) = n * prime(n)", (p * i for i, p in enumerate(P, 1))),
        ("A033428", "a(n) = 3*n^2", f_of(lambda n: 3 * n * n)),
        ("A034386", "Primorial numbers (second definition): n# = product of primes <= n",
         f_of(lambda n: math.prod(p for p in P[:n] if p <= n))),
        ("A036289", "a(n) = n*2^n", f_of(lambda n: n * 2**n)),
        ("A040000", "a(0)=1; a(n)=2 for n >= 1", cfrac_of(lambda: mpmath.sqrt(2), 80)),
        ("A040001", "a(0)=1; for n >= 1, a(n) = 1 if n odd, 2 if n even. Continued fraction for sqrt(3)",
         cfrac_of(lambda: mpmath.sqrt(3), 80)),
        ("A047999", "Sierpinski's [Sierpiński's] triangle (or gasket): triangle, read by rows, formed by reading "
         "Pascal's triangle mod 2", (binom(n, k) % 2 for n in range(40) for k in range(n + 1))),
        ("A049541", "Decimal expansion of 1/Pi", digits_of(lambda: 1 / mpmath.pi)),
        ("A051037", "5-smooth numbers, i.e., numbers whose prime divisors are all <= 5", where(
            lambda n: all(p <= 5 for p in factor(n)), 1)),
        ("A051624", "12-gonal (or dodecagonal) numbers: a(n) = n*(5*n-4)", f_of(lambda n: n * (5 * n - 4))),
        ("A051682", "11-gonal (or hendecagonal) numbers: a(n) = n*(9*n-7)/2", f_of(lambda n: n * (9 * n - 7) // 2)),
        ("A055642", "Number of digits in the decimal expansion of n", f_of(lambda n: len(str(n)))),
        ("A060294", "Decimal expansion of Buffon's constant 2/Pi", digits_of(lambda: 2 / mpmath.pi)),
        ("A065091", "Odd primes", P[1:]),
        ("A068985", "Decimal expansion of 1/e", digits_of(lambda: 1 / mpmath.e)),
        ("A070939", "Length of binary representation of n", f_of(lambda n: max(1, n.bit_length()))),
        ("A122045", "Euler (or secant) numbers E(n)", _euler_numbers_signed()),
        ("A132393", "Triangle of unsigned Stirling numbers of the first kind", (stirling1_unsigned(n, k)
                                                                              for n in range(30) for k in range(n + 1))),
        ("A246655", "Prime powers p^e where p is a prime and e >= 1", where(lambda n: len(factor(n)) == 1, 2)),
        ("A005563", "a(n) = n*(n+2) = (n+1)^2 - 1", f_of(lambda n: n * (n + 2))),
        ("A002522", "a(n) = n^2 + 1", f_of(lambda n: n * n + 1)),
        ("A007590", "a(n) = floor(n^2/2)", f_of(lambda n: n * n // 2)),
        # signed and number-theoretic classics
        ("A000594", "Ramanujan's tau function (or Ramanujan numbers, or tau numbers)", _ramanujan_tau(60)),
        ("A010815", "From Euler's Pentagonal Theorem: coefficient of q^n in Product_{m>=1} (1 - q^m)",
         _euler_function(200)),
        ("A053120", "Triangle of coefficients of Chebyshev's T(n,x) polynomials (powers of x in increasing order)",
         (c for row in _chebyshev_t_rows(30) for c in row)),
        ("A038608", "a(n) = n*(-1)^n", f_of(lambda n: n * (-1) ** n)),
        ("A181983", "a(n) = (-1)^(n+1) * n", f_of(lambda n: (-1) ** (n + 1) * n)),
        ("A001057", "Canonical enumeration of integers: interleaved positive and negative integers with zero "
                    "prepended", f_of(lambda n: (n + 1) // 2 if n % 2 else -(n // 2))),
        ("A008275", "Triangle read by rows of Stirling numbers of first kind, s(n,k), n >= 1, 1 <= k <= n",
         ((-1) ** (n - k) * stirling1_unsigned(n, k) for n in range(1, 30) for k in range(1, n + 1))),
        ("A048994", "Triangle of Stirling numbers of the first kind, s(n,k), n >= 0, 0 <= k <= n",
         ((-1) ** (n - k) * stirling1_unsigned(n, k) for n in range(30) for k in range(n + 1))),
        ("A023900", "Dirichlet inverse of Euler totient function (A000010)",
         f_of(lambda n: math.prod(1 - p for p in factor(n)), 1)),
        ("A039834", "a(n+2) = -a(n+1) + a(n) (signed Fibonacci numbers) with a(-2) = a(-1) = 1", lin([1, 1], [-1, 1])),
        ("A000587", "Rao Uppuluri-Carpenter numbers (or complementary Bell numbers)",
         f_of(lambda n: sum((-1) ** k * stirling2(n, k) for k in range(n + 1)))),
        ("A014963", "Exponential of Mangoldt function M(n): a(n) = 1 unless n is a prime or prime power, when "
                    "a(n) = that prime", f_of(lambda n: next(iter(factor(n))) if len(factor(n)) == 1 else 1, 1)),
        ("A034444", "a(n) is the number of unitary divisors of n (d such that d divides n, gcd(d, n/d) = 1)",
         f_of(lambda n: 2 ** len(factor(n)), 1)),
        ("A000688", "Number of Abelian groups of order n", f_of(_abelian_groups, 1)),
    ]
    return E


def _euler_function(n: int) -> list[int]:
    """Coefficients of prod_{m>=1} (1 - q^m), truncated at q^n."""
    return series_product(lambda k: [1] + [0] * (k - 1) + [-1], n)


def _ramanujan_tau(n: int) -> list[int]:
    """tau(1..n): the coefficients of q * prod (1 - q^m)^24."""
    base = _euler_function(n)
    acc = [1] + [0] * n
    for _ in range(24):
        acc = [sum(acc[i] * base[k - i] for i in range(k + 1)) for k in range(n + 1)]
    return acc[:n]


def _chebyshev_t_rows(rows: int) -> list[list[int]]:
    """Coefficients of T_n(x), lowest power first, by T_{n+1} = 2x T_n - T_{n-1}."""
    out = [[1], [0, 1]]
    while len(out) < rows:
        a, b = out[-2], out[-1]
        nxt = [0] + [2 * c for c in b]
        for i, c in enumerate(a):
            nxt[i] -= c
        out.append(nxt)
    return out[:rows]


def _abelian_groups(n: int) -> int:
    """prod over the prime factorisation n = prod p^e of p(e), the number of partitions of e."""
    parts = inv_series(40, lambda k: 1)
    return math.prod(parts[e] for e in factor(n).values())


def _sylvester() -> Iterator[int]:
    a = 2
    while True:
        yield a
        a = a * a - a + 1


def _binary_partitions(step: int) -> list[int]:
    n = 400
    b = inv_series(n, lambda k: 1 if k & (k - 1) == 0 else 0)
    return b[::step]


def _parts_at_most(m: int) -> list[int]:
    return inv_series(90, lambda k: 1 if k <= m else 0)


def _power_sums(k: int) -> Iterator[int]:
    return accumulate(n**k for n in count(0))


def _cumsum(fn: Callable[[int], int], start: int, first: int | None = None) -> Iterator[int]:
    s = 0
    if first is not None:
        s = first
        yield first
    for k in count(start):
        s += fn(k)
        yield s


def _odd_part(n: int) -> int:
    while n % 2 == 0:
        n //= 2
    return n


def _v2(n: int) -> int:
    return (n & -n).bit_length() - 1


def _rad(n: int) -> int:
    return math.prod(factor(n))


def _liouville(n: int) -> int:
    return (-1) ** sum(factor(n).values())


def _dedekind_psi(n: int) -> int:
    r = n
    for p in factor(n):
        r = r // p * (p + 1)
    return r


def _jordan2(n: int) -> int:
    r = n * n
    for p in factor(n):
        r = r // (p * p) * (p * p - 1)
    return r


def _arith_derivative(n: int) -> int:
    if n < 2:
        return 0
    return sum(n // p * e for p, e in factor(n).items())


def _base(n: int, b: int) -> str:
    if n == 0:
        return "0"
    out = ""
    while n:
        out = str(n % b) + out
        n //= b
    return out


def _inverse_gray(n: int) -> int:
    m = n
    while n:
        n >>= 1
        m ^= n
    return m


def _needs_four_squares(n: int) -> bool:
    while n % 4 == 0:
        n //= 4
    return n % 8 == 7


def _primeth() -> list[int]:
    P = primes()
    out = [1]
    while out[-1] - 1 < len(P):
        out.append(P[out[-1] - 1])
    return out


def _riordan() -> Iterator[int]:
    a = [1, 0]
    yield from a
    for n in count(2):
        a.append((n - 1) * (2 * a[-1] + 3 * a[-2]) // (n + 1))
        yield a[-1]


def _fine() -> Iterator[int]:
    yield 0
    f = 1
    yield f
    for n in count(1):
        f = (catalan(n) - f) // 2
        yield f


def _euler_numbers_signed() -> Iterator[int]:
    for n, v in enumerate(zigzag()):
        yield 0 if n % 2 else (-1) ** (n // 2) * v


def _tangent_numbers() -> Iterator[int]:
    return islice(zigzag(), 1, None, 2)


def _eulerian(n: int, k: int) -> int:
    return sum((-1) ** j * binom(n + 1, j) * (k - j) ** n for j in range(k + 1))


def _cayley() -> Iterator[int]:
    yield 1
    yield 1
    for n in count(2):
        yield n ** (n - 2)


def _a000255() -> Iterator[int]:
    a, b = 1, 1
    yield a
    yield b
    for n in count(2):
        a, b = b, n * b + (n - 1) * a
        yield b


def _a000262() -> Iterator[int]:
    a, b = 1, 1
    yield a
    yield b
    for n in count(2):
        a, b = b, (2 * n - 1) * b - (n - 1) * (n - 2) * a
        yield b


def _beatty(c: Callable[[], mpmath.mpf], start: int) -> list[int]:
    with mpmath.workdps(60):
        v = c()
        return [int(mpmath.floor(n * v)) for n in range(start, start + 120)]


def _primorials() -> Iterator[int]:
    r = 1
    yield r
    for p in primes():
        r *= p
        yield r


def _lcm_seq() -> Iterator[int]:
    r = 1
    yield r
    for n in count(1):
        r = r * n // math.gcd(r, n)
        yield r


def _double_odd() -> Iterator[int]:
    r = 1
    yield r
    for n in count(1):
        r *= 2 * n - 1
        yield r


def _double_factorials() -> Iterator[int]:
    a = [1, 1]
    yield from a
    for n in count(2):
        a.append(n * a[-2])
        yield a[-1]


def _fubini() -> Iterator[int]:
    a = [1]
    yield 1
    for n in count(1):
        a.append(sum(binom(n, k) * a[n - k] for k in range(1, n + 1)))
        yield a[-1]


def _irreducible_gf2() -> Iterator[int]:
    yield 1
    for n in count(1):
        yield sum(mobius(n // d) * 2**d for d in range(1, n + 1) if n % d == 0) // n


@cache
def _mult_partitions(n: int, maxf: int) -> int:
    if n == 1:
        return 1
    return sum(_mult_partitions(n // d, d) for d in range(2, min(n, maxf) + 1) if n % d == 0)


def _fibonacci_word() -> list[int]:
    w = "0"
    while len(w) < 200:
        w = "".join("01" if c == "0" else "0" for c in w)
    return [int(c) for c in w]


def render(terms: Iterable[int]) -> list[int]:
    """Take terms until the OEIS line limit (about 260 characters) or 200 terms."""
    out: list[int] = []
    length = 1
    for t in islice(terms, 200):
        piece = len(str(t)) + 1
        if length + piece > LINE_CHARS and len(out) >= 4:
            break
        out.append(int(t))
        length += piece
    return out


def build() -> tuple[list[str], list[str]]:
    """Compute every sequence and return the stripped and names lines (sorted by A-number)."""
    rows = sorted(entries(), key=lambda e: e[0])
    anums = [r[0] for r in rows]
    if len(set(anums)) != len(anums):
        raise ValueError("duplicate A-number in the sample")
    stripped = ["# OEIS-format sample generated by abilities/mathlas/seqgen.py (terms computed, not downloaded)"]
    names = ["# OEIS-format sample generated by abilities/mathlas/seqgen.py"]
    for anum, name, terms in rows:
        t = render(terms)
        stripped.append(f"{anum} ," + ",".join(map(str, t)) + ",")
        names.append(f"{anum} {name}")
    return stripped, names


def write(out_dir: Path = OUT_DIR) -> int:
    """Write stripped.gz and names.gz deterministically; return the number of sequences."""
    stripped, names = build()
    out_dir.mkdir(parents=True, exist_ok=True)
    for fname, lines in (("stripped.gz", stripped), ("names.gz", names)):
        data = ("\n".join(lines) + "\n").encode("utf-8")
        with open(out_dir / fname, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
            gz.write(data)
    return len(stripped) - 1


if __name__ == "__main__":
    import sys

    sys.stdout.write(f"wrote {write()} sequences to {OUT_DIR}\n")
