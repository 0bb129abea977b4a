"""The cross product of small broadcast operands read in place (Note [Cross offsets])."""

from numtorch.kernels._jit import kernel


@kernel
def cross3_offsets(x, y, out, plan):
    """out, flat C-ordered (rows, 3, post): out[r, :, p] = x's vector at xo[r] + p xp (its
    components xc apart) cross y's at yo[r] + p yp, with cross3's products and differences per
    element (c0 = x1 y2 - x2 y1, ...; each product rounded, then subtracted). x and y are their
    operands' flat storage; a broadcast dim is a repeated offset or a zero step. ``plan`` is
    [xc, xp, yc, yp, post, xo (rows), yo (rows)] (one array: each argument costs the call)."""
    xc, xp, yc, yp, post = plan[0], plan[1], plan[2], plan[3], plan[4]
    rows = (plan.shape[0] - 5) // 2
    for r in range(rows):
        bx, by, bo = plan[5 + r], plan[5 + rows + r], r * 3 * post
        for p in range(post):
            i, j = bx + p * xp, by + p * yp
            x0, x1, x2 = x[i], x[i + xc], x[i + 2 * xc]
            y0, y1, y2 = y[j], y[j + yc], y[j + 2 * yc]
            out[bo + p] = x1 * y2 - x2 * y1
            out[bo + post + p] = x2 * y0 - x0 * y2
            out[bo + 2 * post + p] = x0 * y1 - x1 * y0
