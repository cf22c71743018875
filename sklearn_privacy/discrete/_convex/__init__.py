"""ConvexPrivacyMapping and the convex solvers behind it (calmon2012, Thm. 1 and 2)."""
