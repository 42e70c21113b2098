#!/usr/bin/python3
"""Reference values for tests/engine/stats_test.cpp, computed outside noisefloor.

    /usr/bin/python3 tests/engine/stats_reference.py > tests/data/stats/reference.json
    /usr/bin/python3 tests/engine/stats_reference.py --check tests/data/stats/reference.json

Needs Debian 12's python3-scipy (1.10.1) and python3-mpmath (1.2.1). The tests read the JSON; the
check (ctest stats_reference) recomputes it and fails when the committed file differs (beyond 4 ulps
in a float, the last bits in which NumPy's results may vary between CPUs).

- Welch, Mann-Whitney U, Wilcoxon, the one-sample t test and Spearman's rho: SciPy's own functions.
- Fieller's interval: not a closed form. The interval is the set of ratios R that the t test of
  mean(c) - R mean(b) = 0 does not reject, so each end is found by bisection on that test statistic
  in 60-digit arithmetic (mpmath), on the exact values of the doubles, with the t quantile found by
  inverting Student's distribution function (mpmath's regularised incomplete beta function).
- Signed-rank coverage and smallest p: enumeration of all 2^n sign patterns, and SciPy's exact test.
- Code layout as a factor: the t interval over placement cells' mean log ratios, in mpmath.
- How much data: Welch's power from the noncentral t by numerical integration (mpmath), and the
  signed-rank statistic's mean and variance under a shift by enumeration of every sample.
"""

import itertools
import json
import math
import sys
import warnings

import mpmath as mp
import numpy as np
from scipy import stats

mp.mp.dps = 60


def floats(a):
    return [float(v) for v in a]


# The data sets. The order of the draws is fixed: new data sets are drawn after the old ones.
rng = np.random.default_rng(20261130)
data = {}
data["x10"] = np.round(rng.normal(100, 3, 10), 4)
data["y12"] = np.round(rng.normal(103, 4, 12), 4)
data["x5"] = np.round(rng.normal(10, 1, 5), 4)
data["y4"] = np.round(rng.normal(12, 1, 4), 4)
data["xt"] = rng.integers(0, 6, 15).astype(float)
data["yt"] = rng.integers(1, 7, 13).astype(float)
data["x60"] = np.round(rng.standard_t(3, 60) + 50, 5)
data["y70"] = np.round(rng.standard_t(3, 70) + 50.4, 5)
data["d20"] = np.round(rng.normal(0.01, 0.03, 20), 5)
data["d80"] = np.round(rng.standard_t(2, 80) * 0.01 + 0.002, 6)
data["dz"] = np.array([0, 0.5, -0.25, 0.5, 1.0, 0, -1.5, 0.75, 2.0, 0.5, 1.25, -0.25, 1.0, 3.0])
rng.normal(0, 1, 10)  # drawn by an earlier version of this script; kept so later draws stay the same
# Instruction counts of 1e9 +- 5 (the candidate runs 2 more), and a counter near 1e12 whose CV
# (3e-8) is small enough to break the textbook quadratic form without making it degenerate.
data["count1e9_b"] = np.round(1e9 + rng.normal(0, 5, 10))
data["count1e9_c"] = np.round(1e9 + 2 + rng.normal(0, 5, 12))
data["count1e12_b"] = np.round(1e12 + rng.normal(0, 3e4, 10))
data["count1e12_c"] = np.round(1e12 + 1e4 + rng.normal(0, 3e4, 12))
data["count1e12sd5_b"] = np.round(1e12 + rng.normal(0, 5, 10))
data["count1e12sd5_c"] = np.round(1e12 + 3 + rng.normal(0, 5, 12))
# Times in seconds of something very fast: x10 and y12 scaled by 1e-100 (and 1e100).
data["tiny_b"] = data["x10"] * 1e-100
data["tiny_c"] = data["y12"] * 1e-100
data["huge_b"] = data["x10"] * 1e100
data["huge_c"] = data["y12"] * 1e100

out = {"generator": "tests/engine/stats_reference.py", "scipy": "1.10.1", "mpmath": mp.__version__}
out["data"] = {k: floats(v) for k, v in data.items()}


def pair(a, b):
    return data[a], data[b]


out["welch"] = {}
for a, b in [("x10", "y12"), ("x5", "y4"), ("x60", "y70")]:
    r = stats.ttest_ind(*pair(a, b), equal_var=False)
    out["welch"][a + "_" + b] = {"t": float(r.statistic), "p": float(r.pvalue)}
out["mwu"] = {}
for a, b, m in [("x10", "y12", "exact"), ("x5", "y4", "exact"), ("xt", "yt", "asymptotic"),
                ("x60", "y70", "asymptotic")]:
    r = stats.mannwhitneyu(*pair(a, b), use_continuity=True, alternative="two-sided", method=m)
    out["mwu"][a + "_" + b] = {"U": float(r.statistic), "p": float(r.pvalue), "method": m}
out["wilcoxon"] = {}
for a, m in [("d20", "exact"), ("d80", "approx"), ("dz", "approx")]:
    r = stats.wilcoxon(data[a], zero_method="wilcox", correction=False, method=m)
    out["wilcoxon"][a] = {"T": float(r.statistic), "p": float(r.pvalue), "method": m}
out["ttest1"] = {}
for a in ["d20", "d80"]:
    r = stats.ttest_1samp(data[a], 0)
    out["ttest1"][a] = {"t": float(r.statistic), "p": float(r.pvalue)}
r = stats.spearmanr(data["x10"], np.arange(10)[::-1])
out["spearman_x10_down"] = {"rho": float(r.correlation), "p": float(r.pvalue)}
r = stats.spearmanr(data["x60"], np.arange(60))
out["spearman_x60_up"] = {"rho": float(r.correlation), "p": float(r.pvalue)}


# --- high precision: Student's t, Welch, Fieller ---

def t_cdf(x, nu):
    tail = mp.betainc(nu / 2, mp.mpf(1) / 2, 0, nu / (nu + x * x), regularized=True) / 2
    return 1 - tail if x >= 0 else tail


def t_quantile(q, nu):
    start = mp.mpf(stats.t.ppf(float(q), float(nu)))
    return mp.findroot(lambda x: t_cdf(x, nu) - q, start, tol=mp.mpf(10) ** -50)


def moments(xs):
    v = [mp.mpf(float(x)) for x in xs]  # the exact value of each double
    n = len(v)
    m = mp.fsum(v) / n
    var = mp.fsum((x - m) ** 2 for x in v) / (n - 1)
    return m, var / n, n


def welch_mp(x, y):
    mx, vx, nx = moments(x)
    my, vy, ny = moments(y)
    t = (mx - my) / mp.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (nx - 1) + vy ** 2 / (ny - 1))
    p = 2 * (1 - t_cdf(abs(t), df))
    return {"t": float(t), "df": float(df), "p": float(p)}


def fieller_mp(b, c, level):
    """Ends of {R : |mC - R mB| / sqrt(vC + R^2 vB) <= t}, by bisection on the statistic."""
    mB, vB, nB = moments(b)
    mC, vC, nC = moments(c)
    R = mC / mB
    df = (vC + R * R * vB) ** 2 / (vC ** 2 / (nC - 1) + R ** 4 * vB ** 2 / (nB - 1))
    t = t_quantile((1 + mp.mpf(level)) / 2, df)

    def inside(r):
        return abs(mC - r * mB) <= t * mp.sqrt(vC + r * r * vB)

    def end(direction):
        step = t * mp.sqrt(vC + R * R * vB) / abs(mB)  # the delta method's half-width
        lo, hi = R, R + direction * step
        while inside(hi):
            lo, hi = hi, R + 2 * (hi - R)
        for _ in range(400):  # 2^-400 of the bracket: far below a double's resolution
            mid = (lo + hi) / 2
            if inside(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low, high = end(-1), end(+1)
    return {"low_pct": float((low - 1) * 100), "high_pct": float((high - 1) * 100),
            "delta_pct": float((R - 1) * 100), "df": float(df), "t": float(t),
            "t_scipy": float(stats.t.ppf((1 + level) / 2, float(df)))}


out["fieller"] = {}
for name, (b, c) in {"x10_y12": ("x10", "y12"), "count1e9": ("count1e9_b", "count1e9_c"),
                     "count1e12": ("count1e12_b", "count1e12_c"),
                     "count1e12sd5": ("count1e12sd5_b", "count1e12sd5_c"),
                     "tiny": ("tiny_b", "tiny_c"), "huge": ("huge_b", "huge_c")}.items():
    out["fieller"][name] = {"baseline": b, "candidate": c,
                            "ci95": fieller_mp(data[b], data[c], 0.95),
                            "ci90": fieller_mp(data[b], data[c], 0.90),
                            "welch": welch_mp(data[c], data[b])}


# --- the mean of a million counter values near 1e12 ---
# value i is 1e12 + 0.1 * (i % 10) computed in doubles (the C++ test makes the same doubles)
million = [1e12 + 0.1 * (i % 10) for i in range(1000000)]
out["mean_million_1e12"] = {"mean": float(mp.fsum(mp.mpf(v) for v in million) / len(million))}
out["mean_cancel"] = {"values": [1e16, 1.0, -1e16, 1.0], "mean": 0.5}


# --- signed-rank coverage at small n, by enumeration ---

def walsh(d):
    return sorted((d[i] + d[j]) / 2 for i in range(len(d)) for j in range(i, len(d)))


def coverage_of_extremes(n):
    """P(W_(1) <= 0 <= W_(N)) under the null, by enumerating every sign pattern of 1..n: the
    interval misses only when all Walsh averages have one sign."""
    misses = 0
    for signs in itertools.product((-1, 1), repeat=n):
        w = walsh([s * (k + 1) for k, s in enumerate(signs)])
        misses += 1 if (w[0] > 0 or w[-1] < 0) else 0
    return mp.mpf(1) - mp.mpf(misses) / 2 ** n


out["paired_small"] = {}
for n in range(2, 7):
    # candidate = baseline * (1 + 1e-4 * k): every per-pair log ratio deep inside +-1%
    base = [1000.0 + 10 * k for k in range(n)]
    cand = [b * (1 + 1e-4 * ((k * 7) % 5 - 2)) for k, b in enumerate(base)]
    d = [float(mp.log(mp.mpf(c) / mp.mpf(b))) for b, c in zip(base, cand)]
    w = walsh(d)
    out["paired_small"][str(n)] = {"base": base, "cand": cand, "coverage_min_max": float(coverage_of_extremes(n)),
                                   "min_walsh_pct": float(mp.expm1(w[0]) * 100),
                                   "max_walsh_pct": float(mp.expm1(w[-1]) * 100)}


# --- the smallest n at which the exact signed-rank test reaches p < alpha ---
out["signed_rank_min_n"] = {}
for alpha in [2.0 ** -4, 2.0 ** -5, 2.0 ** -6, 0.05, 0.01]:
    n = 1
    while stats.wilcoxon(np.arange(1, n + 1, dtype=float), method="exact").pvalue >= alpha:
        n += 1
    out["signed_rank_min_n"][repr(alpha)] = n


# --- Welch's t from summary statistics (perf stat -r summaries): SciPy's ttest_ind_from_stats ---
out["welch_from_stats"] = []
for b, c in [((10.0, 1.5, 5), (11.0, 2.5, 7)), ((100.0, 3.0, 30), (101.0, 4.0, 30))]:
    r = stats.ttest_ind_from_stats(c[0], c[1], c[2], b[0], b[1], b[2], equal_var=False)
    out["welch_from_stats"].append({"base": list(b), "cand": list(c), "t": float(r.statistic),
                                    "p": float(r.pvalue)})


# --- across runs: repetitions nested in runs (run level SD 2%, repetitions 0.3%) ---
# Several runs per side: Welch's t (SciPy) and Fieller's interval on the run means. One run per
# side with a calibrated run-to-run CV of 2% (5 df): each mean's variance is the between-run
# variance (0.02 mean(b))^2 plus its s^2 / m, with Satterthwaite's df; the interval is the set of R
# whose t statistic does not reject, found by bisection in mpmath.
def nested(n_runs, reps, mean):
    levels = mean * (1 + 0.02 * rng.normal(0, 1, n_runs))
    return [floats(np.round(lv * (1 + 0.003 * rng.normal(0, 1, reps)), 4)) for lv in levels]


def run_means(runs):
    return [float(mp.fsum(mp.mpf(v) for v in r) / len(r)) for r in runs]


out["across_runs"] = {}
b3, c3 = nested(3, 4, 1000.0), nested(3, 4, 1030.0)
r = stats.ttest_ind(run_means(c3), run_means(b3), equal_var=False)
f = fieller_mp(run_means(b3), run_means(c3), 0.95)
out["across_runs"]["three_runs"] = {"base": b3, "cand": c3, "p": float(r.pvalue), "low_pct": f["low_pct"],
                                    "high_pct": f["high_pct"]}


def one_run_mp(b, c, cv, cv_df, level):
    mB, wB, nB = moments(b)
    mC, wC, nC = moments(c)
    between = (mp.mpf(cv) * mB) ** 2  # one estimate, in both means' variances

    def df_at(x):  # Satterthwaite over the independent estimates in VC + x^2 VB
        parts = [(between * (1 + x * x), cv_df), (wC, nC - 1), (x * x * wB, nB - 1)]
        return mp.fsum(v for v, _ in parts) ** 2 / mp.fsum(v * v / d for v, d in parts)

    VB, VC = between + wB, between + wC
    p = 2 * (1 - t_cdf(abs(mC - mB) / mp.sqrt(VB + VC), df_at(1)))
    R = mC / mB
    t = t_quantile((1 + mp.mpf(level)) / 2, df_at(R))

    def inside(x):
        return abs(mC - x * mB) <= t * mp.sqrt(VC + x * x * VB)

    def end(direction):
        lo, hi = R, R + direction * t * mp.sqrt(VC + R * R * VB) / abs(mB)
        while inside(hi):
            lo, hi = hi, R + 2 * (hi - R)
        for _ in range(400):
            mid = (lo + hi) / 2
            if inside(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    return {"p": float(p), "low_pct": float((end(-1) - 1) * 100), "high_pct": float((end(+1) - 1) * 100),
            "delta_pct": float((R - 1) * 100)}


b1, c1 = nested(1, 4, 1000.0)[0], nested(1, 5, 1030.0)[0]
out["across_runs"]["one_run_floor"] = dict({"base": b1, "cand": c1, "cv": 0.02, "cv_df": 5},
                                           **one_run_mp(b1, c1, 0.02, 5, 0.95))
# --- the normal-mixture confidence sequence (engine/analysis/sequential.h) ---
# Not from the closed form: the boundary is where the mixture martingale
#     M = integral of exp(lam S - lam^2 V / 2) over lam ~ N(0, 1 / rho)
# reaches 1 / alpha (Ville's inequality), with V = t (unit variance) and rho = 1 / r^2 for the
# precision r in units of sigma. The integral is taken numerically (mpmath quad) and its root in S
# found by mpmath findroot; the half-width of the mean is S / t. The best precision at t* is found
# by SciPy's bounded scalar minimisation of that half-width.
def mixture_boundary(t, r, alpha):
    with mp.workdps(25):
        return +mixture_boundary_at(t, r, alpha)


def mixture_boundary_at(t, r, alpha):
    t, r, alpha = mp.mpf(t), mp.mpf(r), mp.mpf(alpha)
    rho = 1 / r ** 2

    def martingale(s):
        f = lambda lam: mp.exp(lam * s - lam ** 2 * t / 2) * mp.sqrt(rho / (2 * mp.pi)) * mp.exp(-rho * lam ** 2 / 2)
        return mp.quad(f, [-mp.inf, 0, s / (t + rho), mp.inf])

    guess = mp.sqrt(2 * t * mp.log(1 / alpha)) * 2
    return mp.findroot(lambda s: mp.log(martingale(s)) + mp.log(alpha), guess) / t


out["confidence_sequence"] = []
for t, r, alpha in [(10, 0.1, 0.05), (100, 0.0864, 0.05), (1000, 0.0273, 0.05), (5000, 0.01, 0.01),
                    (37, 0.3, 0.1), (200000, 0.002, 0.05)]:
    out["confidence_sequence"].append({"t": t, "precision": r, "alpha": alpha,
                                       "half_width_unit_sd": float(mixture_boundary(t, r, alpha))})

out["confidence_sequence_best"] = []
for t_star, alpha in [(1000, 0.05), (100, 0.05), (500, 0.01)]:
    from scipy import optimize
    res = optimize.minimize_scalar(lambda lr: float(mixture_boundary(t_star, mp.exp(lr), alpha)),
                                   bounds=(-12, 2), method="bounded", options={"xatol": 1e-4})
    out["confidence_sequence_best"].append({"t": t_star, "alpha": alpha, "best_precision": float(mp.exp(res.x)),
                                            "best_half_width_unit_sd": float(res.fun)})
# --- the log-scale interval of a positive quantity's mean (rates and counts in the text report) ---
# The Student t interval of ln(mean) by the delta method, se(ln mean) = sd / (sqrt(n) mean), mapped
# back: mean * exp(-+t se). In 60 digits with mpmath's t quantile, and again from SciPy's
# t.interval on the log scale. "drops5" is a drop rate that is zero in most repetitions (its
# Student t interval reaches far below zero), "x5" an everyday rate.
data_log = {"drops5": [0.0, 0.0, 12000.0, 0.0, 350000.0], "x5": floats(data["x5"]),
            "count1e9_b": floats(data["count1e9_b"])}
out["log_scale_mean"] = {}
for name, xs in data_log.items():
    m, v, n = moments(xs)
    row = {"values": xs, "n": n}
    for level in (0.95, 0.90):
        t = t_quantile((1 + mp.mpf(level)) / 2, n - 1)
        half = t * mp.sqrt(v) / m
        lo, hi = stats.t.interval(level, n - 1, loc=np.log(float(m)), scale=float(mp.sqrt(v) / m))
        row["ci%d" % round(level * 100)] = {"low": float(m * mp.exp(-half)), "high": float(m * mp.exp(half)),
                                             "t_low": float(m - t * mp.sqrt(v)), "t_high": float(m + t * mp.sqrt(v)),
                                             "low_scipy": float(np.exp(lo)), "high_scipy": float(np.exp(hi))}
    out["log_scale_mean"][name] = row


# --- the signed-rank test with a zero difference: six alike and a zero ---
# SciPy 1.10 takes the normal approximation when a difference is zero; its p for six positive
# differences and a zero is below 2 / 2^6 = 0.03125, the smallest p any arrangement of six signs
# has (SciPy's exact test of the six).
dzero = [0.0, 0.011, 0.013, 0.017, 0.019, 0.023, 0.029]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "Sample size too small for normal approximation": the point
    p_approx = stats.wilcoxon(dzero, zero_method="wilcox", correction=False, method="approx").pvalue
out["wilcoxon_zero_floor"] = {"d": dzero, "p_scipy_approx": float(p_approx),
                              "p_exact_nonzero": float(stats.wilcoxon(dzero[1:], method="exact").pvalue)}


# --- how much data: Welch's power under its own model, in 30 digits ---
# The power of Welch's test at noncentrality lam with df degrees of freedom is P(|T| > c) for T
# noncentral t: P(T <= x) = integral over v of Phi(x sqrt(v / df) - lam) times the chi-square
# density of v with df degrees of freedom (mpmath quad), c the t quantile above. The smallest
# detectable difference solves power = 0.8 for lam (findroot); n_needed is the smallest equal n per
# variant whose power reaches 0.8 at the observed difference (bisection on n).
rng_power = np.random.default_rng(20260412)
data["outlier_b"] = np.concatenate([np.round(rng_power.normal(100, 1, 19), 4), [1e9]])
data["outlier_c"] = np.round(rng_power.normal(100, 1, 20), 4)
data["bimodal_b"] = np.round(np.concatenate([rng_power.normal(10, 0.3, 4), rng_power.normal(30, 0.3, 3)]), 4)
data["bimodal_c"] = np.round(np.concatenate([rng_power.normal(4, 0.3, 3), rng_power.normal(12, 0.3, 4)]), 4)
data["ordinary_b"] = np.round(rng_power.normal(100, 3, 10), 4)
data["ordinary_c"] = np.round(rng_power.normal(105, 3, 10), 4)
for k in ["outlier_b", "outlier_c", "bimodal_b", "bimodal_c", "ordinary_b", "ordinary_c"]:
    out["data"][k] = floats(data[k])


def nct_cdf(x, df, lam):
    with mp.workdps(30):
        df, x, lam = mp.mpf(df), mp.mpf(x), mp.mpf(lam)
        density = lambda v: mp.exp((df / 2 - 1) * mp.log(v) - v / 2 - (df / 2) * mp.log(2) - mp.loggamma(df / 2))
        f = lambda v: mp.ncdf(x * mp.sqrt(v / df) - lam) * density(v)
        return mp.quad(f, [0, df / 2, df, 2 * df, mp.inf])


def welch_power_mp(lam, df, c):
    return 1 - nct_cdf(c, df, lam) + nct_cdf(-c, df, lam)


def welch_sizing_mp(b, c, alpha=0.05, power=0.8):
    mB, vB, nB = moments(b)  # vB, vC: variances of the means
    mC, vC, nC = moments(c)
    sB2, sC2 = vB * nB, vC * nC  # per value
    df = (vB + vC) ** 2 / (vB ** 2 / (nB - 1) + vC ** 2 / (nC - 1))
    crit = t_quantile(1 - mp.mpf(alpha) / 2, df)
    with mp.workdps(30):
        lam = mp.findroot(lambda l: welch_power_mp(l, df, crit) - power, crit + 0.84, tol=mp.mpf(10) ** -25)
    mde = lam * mp.sqrt(vB + vC) / abs(mB)
    effect = abs(mC - mB)

    def power_at(n):
        dfn = (sB2 + sC2) ** 2 * (n - 1) / (sB2 ** 2 + sC2 ** 2)
        return welch_power_mp(effect / mp.sqrt((sB2 + sC2) / n), dfn, t_quantile(1 - mp.mpf(alpha) / 2, dfn))

    lo, hi = 1, 2
    while power_at(hi) < power:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if power_at(mid) < power else (lo, mid)
    return {"mde_pct": float(mde * 100), "n_needed": hi, "power_at_n_needed": float(power_at(hi)),
            "power_below": float(power_at(hi - 1)) if hi > 2 else 0.0, "delta_pct": float((mC / mB - 1) * 100)}


out["welch_sizing"] = {}
for name in ["outlier", "bimodal", "ordinary"]:
    out["welch_sizing"][name] = dict({"baseline": name + "_b", "candidate": name + "_c"},
                                     **welch_sizing_mp(data[name + "_b"], data[name + "_c"]))


# --- the moments of the signed-rank statistic under a shift, by enumeration ---
# Every sample of n values drawn (with replacement) from five equally likely values, R+ as the sum
# of the midranks of |x| over the positive x (scipy.stats.rankdata): its exact mean and variance.
population = [-1.0, -0.3, 0.4, 1.7, 2.2]
out["signed_rank_moments"] = []
for theta in [0.0, 0.25, -0.5]:
    for n in [2, 4, 6]:
        values = []
        for draw in itertools.product(population, repeat=n):
            x = np.array(draw) + theta
            ranks = stats.rankdata(np.abs(x))
            values.append(mp.mpf(float(ranks[x > 0].sum())))
        mean = mp.fsum(values) / len(values)
        var = mp.fsum((v - mean) ** 2 for v in values) / len(values)
        out["signed_rank_moments"].append({"population": population, "theta": theta, "n": n,
                                           "mean": float(mean), "variance": float(var)})


# --- code layout as a random factor: Student's t over the placement cells ---
# Pairs (b, c) in cells of (baseline placement, candidate placement): each cell's mean log ratio is
# one value; the interval is the t interval of their mean, as a percent change, in 60 digits.
layout_rng = np.random.default_rng(20261205)
layout_pairs = []
for cell in range(8):
    shift = layout_rng.normal(0.004, 0.006)
    for _ in range(3 + cell % 3):
        b = float(np.round(layout_rng.normal(100, 0.5), 4))
        layout_pairs.append({"b": b, "c": float(np.round(b * math.exp(shift + layout_rng.normal(0, 0.002)), 4)),
                             "layout_b": cell, "layout_c": (cell * 3 + 1) % 8})


def layout_cells_mp(pairs, level):
    cells = {}
    for p in pairs:
        cells.setdefault((p["layout_b"], p["layout_c"]), []).append(mp.log(mp.mpf(p["c"]) / mp.mpf(p["b"])))
    means = [mp.fsum(v) / len(v) for v in cells.values()]
    k = len(means)
    m = mp.fsum(means) / k
    sd = mp.sqrt(mp.fsum((x - m) ** 2 for x in means) / (k - 1))
    t = t_quantile(1 - (1 - mp.mpf(level)) / 2, k - 1)
    return {"cells": k, "estimate_pct": float(mp.expm1(m) * 100), "low_pct": float(mp.expm1(m - t * sd / mp.sqrt(k)) * 100),
            "high_pct": float(mp.expm1(m + t * sd / mp.sqrt(k)) * 100), "spread_pct": float(mp.expm1(sd) * 100),
            "p": float(stats.ttest_1samp([float(x) for x in means], 0.0).pvalue)}


out["layout_cells"] = {"pairs": layout_pairs, "level95": layout_cells_mp(layout_pairs, 0.95),
                       "level90": layout_cells_mp(layout_pairs, 0.90)}

text = json.dumps(out, indent=1, sort_keys=True) + "\n"


# Where the committed values and today's differ by more than the last bits NumPy's vectorised
# functions may vary in between CPUs (np.exp picks its SIMD code by the CPU it runs on): the path of
# the first such value, or None. Keys, strings, integers and the structure must match exactly.
def first_difference(committed, now, path="$", ulps=4):
    if type(committed) is not type(now):
        return path
    if isinstance(committed, dict):
        if committed.keys() != now.keys():
            return path
        for key in committed:
            where = first_difference(committed[key], now[key], path + "." + key, ulps)
            if where:
                return where
        return None
    if isinstance(committed, list):
        if len(committed) != len(now):
            return path
        for i, (a, b) in enumerate(zip(committed, now)):
            where = first_difference(a, b, "%s[%d]" % (path, i), ulps)
            if where:
                return where
        return None
    if isinstance(committed, float) and math.isnan(committed) and math.isnan(now):
        return None
    if isinstance(committed, float) and math.isfinite(committed) and math.isfinite(now):
        return None if abs(committed - now) <= ulps * math.ulp(max(abs(committed), abs(now))) else path
    return None if committed == now else path


if len(sys.argv) == 3 and sys.argv[1] == "--check":
    with open(sys.argv[2]) as f:
        committed = json.load(f)
    where = first_difference(committed, json.loads(text))
    if where:
        sys.exit(sys.argv[2] + " differs from what tests/engine/stats_reference.py computes now, at " + where)
    print(sys.argv[2] + ": up to date")
else:
    sys.stdout.write(text)
