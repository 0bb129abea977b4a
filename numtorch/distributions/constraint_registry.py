"""``biject_to`` / ``transform_to``: the transform from unconstrained space onto a constraint."""

from __future__ import annotations

import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Constraint type -> factory of the transform onto it."""

    def __init__(self):
        self._registry: dict = {}

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(constraint):
    return transforms.identity_transform


def _independent_bij(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


def _independent_tr(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


def _positive(constraint):
    return transforms.ExpTransform()


def _greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)])


def _less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(), transforms.AffineTransform(constraint.upper_bound, -1)])


def _interval(constraint):
    lower_is_0 = isinstance(constraint.lower_bound, numbers.Number) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, numbers.Number) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return transforms.SigmoidTransform()
    loc, scale = constraint.lower_bound, constraint.upper_bound - constraint.lower_bound
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(loc, scale)])


for _reg in (biject_to, transform_to):
    _reg.register(constraints.real, _real)
    _reg.register(constraints.positive, _positive)
    _reg.register(constraints.nonnegative, _positive)
    _reg.register(constraints.greater_than, _greater_than)
    _reg.register(constraints.greater_than_eq, _greater_than)
    _reg.register(constraints.less_than, _less_than)
    _reg.register(constraints.interval, _interval)
    _reg.register(constraints.half_open_interval, _interval)
biject_to.register(constraints.independent, _independent_bij)
transform_to.register(constraints.independent, _independent_tr)
biject_to.register(constraints.simplex, lambda c: transforms.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: transforms.SoftmaxTransform())
