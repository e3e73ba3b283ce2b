#!/usr/bin/env python3
"""Writes vectors.txt: an independent exact reference (fractions.Fraction,
math.isqrt) for the float module of pisa-interp. Usage:
    python3 gen_vectors.py 150 > vectors.txt
Line formats (hex bits; flags: 1 = .ftz, 2 = .dsat):
    OP TYPE MODE FLAGS A B C RESULT      (add sub mul div fma sqrt rsqrt rcp frnd)
    cvt FROM TO MODE FLAGS A RESULT
    f2i FROM s|u BITS MODE A RESULT
    i2f TO s|u BITS MODE DSAT A RESULT
"""
from fractions import Fraction as F
import math, random, sys

FMT = {  # bits, p, emin, emax
    'hf': (16, 11, -14, 15), 'bf': (16, 8, -126, 127),
    'f': (32, 24, -126, 127), 'df': (64, 53, -1022, 1023)}
MODES = ['re', 'rd', 'ru', 'rz', 'rna']

def parts(ty):
    bits, p, emin, emax = FMT[ty]
    sign = 1 << (bits - 1); fracm = (1 << (p - 1)) - 1
    inf = ((1 << bits) - 1) & ~sign & ~fracm
    return bits, p, emin, emax, sign, fracm, inf

def decode(ty, a):
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    neg = bool(a & sign); e = (a & inf) >> (p - 1); fr = a & fracm
    if e == (inf >> (p - 1)):
        return ('nan', neg) if fr else ('inf', neg)
    if e == 0:
        if fr == 0: return ('zero', neg)
        v = F(fr) * F(2) ** (emin - (p - 1))
    else:
        v = F(fr | (1 << (p - 1))) * F(2) ** (e - 1 + emin - (p - 1))
    return (-v if neg else v, neg)

def isnan(ty, a): return decode(ty, a)[0] == 'nan'
def quiet(ty, a):
    bits, p = FMT[ty][:2]; return a | (1 << (p - 2))
def dnan(ty):
    bits, p, emin, emax, sign, fracm, inf = parts(ty); return inf | (1 << (p - 2))
def zero(ty, neg): return parts(ty)[4] if neg else 0
def infb(ty, neg): return parts(ty)[6] | zero(ty, neg)
def maxb(ty, neg): return (parts(ty)[6] - 1) | zero(ty, neg)

def flog2(x):  # floor(log2(x)) for positive Fraction
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2) ** e > x: e -= 1
    if F(2) ** (e + 1) <= x: e += 1
    return e

def decide(mode, neg, n, cls):  # cls: 0 exact, 1 below, 2 tie, 3 above
    if mode == 're': return cls == 3 or (cls == 2 and n & 1)
    if mode == 'rna': return cls >= 2
    if mode == 'rz': return False
    if mode == 'ru': return cls != 0 and not neg
    if mode == 'rd': return cls != 0 and neg

def overflow(ty, neg, mode):
    to_inf = {'re': True, 'rna': True, 'rz': False, 'ru': not neg, 'rd': neg}[mode]
    return infb(ty, neg) if to_inf else maxb(ty, neg)

def compose(ty, neg, n, lsb, mode):
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    minlsb = emin - (p - 1)
    if n == 0: return zero(ty, neg)
    # n may be 2^p after rounding
    while n >= (1 << p):
        assert n % 2 == 0; n //= 2; lsb += 1
    if lsb > emax - (p - 1): return overflow(ty, neg, mode)
    if n < (1 << (p - 1)):
        assert lsb == minlsb; return n | zero(ty, neg)
    e = lsb - minlsb + 1
    return (e << (p - 1)) | (n & fracm) | zero(ty, neg)

def round_q(ty, x, mode, zsign=False):
    """Round a Fraction x into ty. Zero x → zero with sign zsign."""
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    if x == 0: return zero(ty, zsign)
    neg = x < 0; m = -x if neg else x
    E = flog2(m)
    lsb = max(E - (p - 1), emin - (p - 1))
    q = m / F(2) ** lsb
    n = q.numerator // q.denominator; r = q - n
    cls = 0 if r == 0 else 1 if r < F(1, 2) else 2 if r == F(1, 2) else 3
    if decide(mode, neg, n, cls): n += 1
    return compose(ty, neg, n, lsb, mode)

def round_sqrtT(ty, T, mode, neg=False):
    """Round v = sqrt(T) (T positive Fraction)."""
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    E = flog2(T) // 2  # floor(log2 sqrt T) = floor(floor(log2 T)/2)
    lsb = max(E - (p - 1), emin - (p - 1))
    S = T / F(4) ** lsb   # v/2^lsb = sqrt(S)
    n = math.isqrt(S.numerator // S.denominator)
    if F(n * n) == S: cls = 0
    else:
        h = F(2 * n + 1, 2) ** 2
        cls = 1 if S < h else 2 if S == h else 3
    if decide(mode, neg, n, cls): n += 1
    return compose(ty, neg, n, lsb, mode)

def flush(ty, a):
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    return a & sign if a & inf == 0 else a

def finish(ty, r, ftz, dsat):
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    one = emax << (p - 1)
    if dsat:
        if isnan(ty, r) or (r & sign and r != sign): r = 0
        elif not r & sign and r > one: r = one
    if ftz: r = flush(ty, r)
    return r

def add(ty, a, b, mode, sub=False):
    va, na = decode(ty, a); vb, nb = decode(ty, b)
    if va == 'nan': return quiet(ty, a)
    if vb == 'nan': return quiet(ty, b)
    if sub:
        nb = not nb
        if vb not in ('inf', 'zero'): vb = -vb
    if va == 'inf' and vb == 'inf': return dnan(ty) if na != nb else infb(ty, na)
    if va == 'inf': return infb(ty, na)
    if vb == 'inf': return infb(ty, nb)
    if va == 'zero' and vb == 'zero': return zero(ty, na if na == nb else mode == 'rd')
    x = (0 if va == 'zero' else va) + (0 if vb == 'zero' else vb)
    return round_q(ty, x, mode, zsign=(mode == 'rd'))

def mul(ty, a, b, mode):
    va, na = decode(ty, a); vb, nb = decode(ty, b); neg = na != nb
    if va == 'nan': return quiet(ty, a)
    if vb == 'nan': return quiet(ty, b)
    if (va == 'inf' and vb == 'zero') or (va == 'zero' and vb == 'inf'): return dnan(ty)
    if 'inf' in (va, vb): return infb(ty, neg)
    if 'zero' in (va, vb): return zero(ty, neg)
    return round_q(ty, va * vb, mode, zsign=neg)

def div(ty, a, b, mode):
    va, na = decode(ty, a); vb, nb = decode(ty, b); neg = na != nb
    if va == 'nan': return quiet(ty, a)
    if vb == 'nan': return quiet(ty, b)
    if (va == 'inf' and vb == 'inf') or (va == 'zero' and vb == 'zero'): return dnan(ty)
    if va == 'inf' or vb == 'zero': return infb(ty, neg)
    if va == 'zero' or vb == 'inf': return zero(ty, neg)
    return round_q(ty, va / vb, mode, zsign=neg)

def fma(ty, a, b, c, mode):
    va, na = decode(ty, a); vb, nb = decode(ty, b); vc, nc = decode(ty, c)
    for v, x in ((va, a), (vb, b), (vc, c)):
        if v == 'nan': return quiet(ty, x)
    np_ = na != nb
    if (va == 'inf' and vb == 'zero') or (va == 'zero' and vb == 'inf'): return dnan(ty)
    if 'inf' in (va, vb):
        if vc == 'inf' and nc != np_: return dnan(ty)
        return infb(ty, np_)
    if vc == 'inf': return infb(ty, nc)
    pz = 'zero' in (va, vb)
    if pz and vc == 'zero': return zero(ty, np_ if np_ == nc else mode == 'rd')
    pv = 0 if pz else va * vb
    x = pv + (0 if vc == 'zero' else vc)
    return round_q(ty, x, mode, zsign=(mode == 'rd'))

def sqrt(ty, a, mode):
    va, na = decode(ty, a)
    if va == 'nan': return quiet(ty, a)
    if va == 'zero': return a
    if na: return dnan(ty)
    if va == 'inf': return a
    return round_sqrtT(ty, va, mode)

def rsqrt(ty, a, mode):
    va, na = decode(ty, a)
    if va == 'nan': return quiet(ty, a)
    if va == 'zero': return infb(ty, na)
    if na: return dnan(ty)
    if va == 'inf': return 0
    return round_sqrtT(ty, 1 / va, mode)

def nanconv(fty, tty, a):
    fb, fp = FMT[fty][:2]; tb, tp = FMT[tty][:2]
    fr = a & ((1 << (fp - 1)) - 1)
    fr = fr << (tp - fp) if tp >= fp else fr >> (fp - tp)
    neg = bool(a >> (fb - 1) & 1)
    return quiet(tty, parts(tty)[6] | fr | zero(tty, neg))

def convert(fty, tty, a, mode, ftz, dsat):
    if ftz or (FMT[tty][0] < FMT[fty][0]): 
        if ftz or (a & parts(fty)[6] == 0): a = flush(fty, a)
    v, n = decode(fty, a)
    if v == 'nan': r = nanconv(fty, tty, a)
    elif v == 'inf': r = infb(tty, n)
    elif v == 'zero': r = zero(tty, n)
    else: r = round_q(tty, v, mode, zsign=n)
    if dsat and decode(tty, r)[0] == 'inf': r = maxb(tty, n)
    if ftz: r = flush(tty, r)
    return r

def rint(v, mode):  # Fraction -> int by mode
    neg = v < 0; m = -v if neg else v
    n = m.numerator // m.denominator; r = m - n
    cls = 0 if r == 0 else 1 if r < F(1, 2) else 2 if r == F(1, 2) else 3
    if decide(mode, neg, n, cls): n += 1
    return -n if neg else n

def to_int(fty, a, signed, bits, mode, ftz):
    if ftz: a = flush(fty, a)
    v, n = decode(fty, a)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if v in ('nan', 'zero'): i = 0
    elif v == 'inf': i = lo if n else hi
    else: i = min(max(rint(v, mode), lo), hi)
    return i & ((1 << bits) - 1)

def from_int(tty, a, signed, bits, mode, dsat):
    v = a & ((1 << bits) - 1)
    if signed and v >> (bits - 1): v -= 1 << bits
    r = round_q(tty, F(v), mode)
    if dsat and decode(tty, r)[0] == 'inf': r = maxb(tty, v < 0)
    return r

def frnd(ty, a, mode, ftz):
    if ftz: a = flush(ty, a)
    v, n = decode(ty, a)
    if v == 'nan': return quiet(ty, a)
    if v in ('inf', 'zero'): return a
    i = rint(v, mode)
    return round_q(ty, F(i), 're', zsign=n)
R = random.Random(12345)

def rand_operand(ty, base=None):
    bits, p, emin, emax, sign, fracm, inf = parts(ty)
    bias = emax
    k = R.random()
    if k < 0.15:
        c = R.choice(['z', 'inf', 'qnan', 'snan', 'mind', 'maxd', 'minn', 'max', 'one'])
        v = {'z': 0, 'inf': inf, 'qnan': inf | (1 << (p - 2)) | R.randrange(1 << (p - 2)),
             'snan': inf | R.randrange(1, 1 << (p - 2)), 'mind': 1, 'maxd': fracm,
             'minn': 1 << (p - 1), 'max': inf - 1, 'one': bias << (p - 1)}[c]
        return v | (sign if R.random() < 0.5 else 0)
    if k < 0.35:
        return R.randrange(1 << bits)
    if k < 0.45:  # subnormal
        return R.randrange(1, 1 << (p - 1)) | (sign if R.random() < 0.5 else 0)
    # moderate exponent, random mantissa, possibly related to base
    if base is not None and R.random() < 0.6 and decode(ty, base)[0] not in ('nan', 'inf', 'zero'):
        be = (base & inf) >> (p - 1)
        e = be + R.choice([0, -1, 1, -(p - 1), -p, -(p + 1), -(p + 2), -2 * p, p])
        e = min(max(e, 1), (inf >> (p - 1)) - 1)
    else:
        e = bias + R.randrange(-6, 7)
    m = R.randrange(1 << (p - 1))
    if R.random() < 0.3:  # few mantissa bits set: exactness, ties
        m = (R.randrange(1 << 4) << (p - 5)) if p > 5 else m
    return (e << (p - 1)) | m | (sign if R.random() < 0.5 else 0)

out = []
TYS = ['hf', 'bf', 'f', 'df']
def flags(): 
    x = R.random()
    return 0 if x < 0.7 else 1 if x < 0.8 else 2 if x < 0.9 else 3

def emit(*f): out.append(' '.join(str(x) for x in f))
def h(x): return '%x' % x

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100
for ty in TYS:
    for _ in range(N):
        mode = R.choice(MODES); fl = flags(); ftz, dsat = fl & 1, fl & 2
        a = rand_operand(ty); b = rand_operand(ty, a); c = rand_operand(ty, a)
        if ftz: fa, fb, fc = flush(ty, a), flush(ty, b), flush(ty, c)
        else: fa, fb, fc = a, b, c
        op = R.choice(['add', 'sub', 'mul', 'div', 'fma', 'fma', 'sqrt', 'rsqrt', 'rcp', 'frnd', 'min', 'max'])
        if op == 'add': r = add(ty, fa, fb, mode)
        elif op == 'sub': r = add(ty, fa, fb, mode, True)
        elif op == 'mul': r = mul(ty, fa, fb, mode)
        elif op == 'div': r = div(ty, fa, fb, mode)
        elif op == 'fma':
            # make c cancel a*b sometimes
            r = fma(ty, fa, fb, fc, mode)
        elif op == 'sqrt': r = sqrt(ty, fa, mode)
        elif op == 'rsqrt': r = rsqrt(ty, fa, mode)
        elif op == 'rcp': r = div(ty, FMT[ty][3] << (FMT[ty][1] - 1), fa, mode)
        elif op == 'frnd':
            r = frnd(ty, a, mode, ftz); fl &= 1
            emit('frnd', ty, mode, fl, h(a), 0, 0, h(r)); continue
        else: continue
        r = finish(ty, r, ftz, dsat)
        emit(op, ty, mode, fl, h(a), h(b), h(c), h(r))
    # conversions
    for _ in range(N // 2):
        mode = R.choice(MODES); fl = flags()
        to = R.choice([t for t in TYS if t != ty])
        a = rand_operand(ty)
        if FMT[to][0] > FMT[ty][0] or (to, ty) in (('hf','bf'),('bf','hf')):
            pass
        r = convert(ty, to, a, mode, fl & 1, fl & 2)
        emit('cvt', ty, to, mode, fl, h(a), h(r))
        bits = R.choice([8, 16, 32, 64]); s = R.random() < 0.5
        r = to_int(ty, a, s, bits, mode, 0)
        emit('f2i', ty, 's' if s else 'u', bits, mode, h(a), h(r))
        v = R.choice([R.randrange(1 << bits), R.randrange(1 << min(bits, 30)), (1 << bits) - R.randrange(1, 1000) if bits > 10 else 1,
                      ((1 << R.randrange(bits)) | R.randrange(1 << 12)) & ((1 << bits) - 1)])
        d = R.random() < 0.3
        r = from_int(ty, v, s, bits, mode, d)
        emit('i2f', ty, 's' if s else 'u', bits, mode, int(d), h(v), h(r))
print('\n'.join(out))
