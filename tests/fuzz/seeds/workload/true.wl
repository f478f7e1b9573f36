# true: pure launch cost. The action does nothing, so what a run measures is the mechanism.
summary true(1): launch cost only
run true
