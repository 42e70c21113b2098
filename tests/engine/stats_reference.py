import numpy as np
from scipy import stats
rng = np.random.default_rng(20261130)
def fmt(a): return "{" + ", ".join(repr(float(v)) for v in a) + "}"
out = {}
x10 = np.round(rng.normal(100, 3, 10), 4); y12 = np.round(rng.normal(103, 4, 12), 4)
x5 = np.round(rng.normal(10, 1, 5), 4); y4 = np.round(rng.normal(12, 1, 4), 4)
xt = rng.integers(0, 6, 15).astype(float); yt = rng.integers(1, 7, 13).astype(float)
x60 = np.round(rng.standard_t(3, 60) + 50, 5); y70 = np.round(rng.standard_t(3, 70) + 50.4, 5)
d20 = np.round(rng.normal(0.01, 0.03, 20), 5)
d80 = np.round(rng.standard_t(2, 80) * 0.01 + 0.002, 6)
dz = np.array([0, 0.5, -0.25, 0.5, 1.0, 0, -1.5, 0.75, 2.0, 0.5, 1.25, -0.25, 1.0, 3.0])
for name, v in [("x10",x10),("y12",y12),("x5",x5),("y4",y4),("xt",xt),("yt",yt),("x60",x60),("y70",y70),("d20",d20),("d80",d80),("dz",dz)]:
    print(f"const std::vector<double> k_{name} = {fmt(v)};")
def p(v): return repr(float(v))
print("// welch")
for a,b in [("x10","y12"),("x5","y4"),("x60","y70")]:
    r = stats.ttest_ind(eval(a), eval(b), equal_var=False); print(f"// welch {a} {b}: t={p(r.statistic)} p={p(r.pvalue)}")
print("// mwu")
for a,b,m in [("x10","y12","exact"),("x5","y4","exact"),("xt","yt","asymptotic"),("x60","y70","asymptotic")]:
    r = stats.mannwhitneyu(eval(a), eval(b), use_continuity=True, alternative="two-sided", method=m); print(f"// mwu {a} {b} {m}: U={p(r.statistic)} p={p(r.pvalue)}")
print("// wilcoxon")
for a,m in [("d20","exact"),("d80","approx"),("dz","approx")]:
    r = stats.wilcoxon(eval(a), zero_method="wilcox", correction=False, method=m); print(f"// wilcoxon {a} {m}: T={p(r.statistic)} p={p(r.pvalue)}")
for a in ["d20","d80"]:
    r = stats.ttest_1samp(eval(a), 0); print(f"// ttest1 {a}: t={p(r.statistic)} p={p(r.pvalue)}")
r = stats.spearmanr(x10, np.arange(10)[::-1] + rng.normal(0,1,10)*0); print(f"// spearman x10 vs 9..0: rho={p(r.correlation)} p={p(r.pvalue)}")
r = stats.spearmanr(x60, np.arange(60)); print(f"// spearman x60 vs 0..59: rho={p(r.correlation)} p={p(r.pvalue)}")
# Fieller for y12/x10 at 95% and 90%
def fieller(b, c, level):
    mB, mC = b.mean(), c.mean(); vB = b.var(ddof=1)/len(b); vC = c.var(ddof=1)/len(c)
    R = mC/mB; df = (vC + R*R*vB)**2 / (vC**2/(len(c)-1) + R**4*vB**2/(len(b)-1))
    t = stats.t.ppf((1+level)/2, df)
    a = mB*mB - t*t*vB; bb = -2*mB*mC; cc = mC*mC - t*t*vC
    disc = bb*bb - 4*a*cc
    r1 = (-bb - np.sqrt(disc))/(2*a); r2 = (-bb + np.sqrt(disc))/(2*a)
    return (min(r1,r2)-1)*100, (max(r1,r2)-1)*100, df
print("// fieller y12/x10 95%:", [p(v) for v in fieller(x10, y12, 0.95)])
print("// fieller y12/x10 90%:", [p(v) for v in fieller(x10, y12, 0.90)])
# Welch from summary statistics (perf stat -r summaries): scipy.stats.ttest_ind_from_stats
print("// welch from stats")
for b, c in [((10.0, 1.5, 5), (11.0, 2.5, 7)), ((100.0, 3.0, 30), (101.0, 4.0, 30))]:
    r = stats.ttest_ind_from_stats(c[0], c[1], c[2], b[0], b[1], b[2], equal_var=False)
    print(f"// ttest_ind_from_stats cand={c} base={b}: t={p(r.statistic)} p={p(r.pvalue)}")
