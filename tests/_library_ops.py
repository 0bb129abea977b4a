"""Scalar functions for tests/test_library.py: elementwise() compiles their source, so they live
in a real module (a function typed at a prompt has no source)."""

import math


def softplus(x, beta=1.0):
    return math.log1p(math.exp(beta * x)) / beta


def dsoftplus(x, beta=1.0):
    return 1.0 / (1.0 + math.exp(-beta * x))


def lerp2(a, b, w=0.25):
    return a + w * (b - a)


def dlerp2_a(a, b, w=0.25):
    return 1.0 - w


def dlerp2_b(a, b, w=0.25):
    return w


def bad_typing(x):
    return x.nonexistent_attribute


def d2softplus(x, beta=1.0):
    s = 1.0 / (1.0 + math.exp(-beta * x))
    return beta * s * (1.0 - s)


def mulsin(a, b):
    return a * math.sin(b)


def dmulsin_a(a, b):
    return math.sin(b)


def dmulsin_b(a, b):
    return a * math.cos(b)


def d2mulsin_ab(a, b):
    return math.cos(b)


def d2mulsin_bb(a, b):
    return -a * math.sin(b)


def zero2(a, b):
    return 0.0


def absmax(a, b):
    return max(abs(a), abs(b))


def logaddexp(a, b):
    m = max(a, b)
    if m == -math.inf:
        return m
    return m + math.log(math.exp(a - m) + math.exp(b - m))


def bad_combine(a, b):
    return a.nonexistent_attribute


def add(a, b):
    return a + b
