"""Drop-in replacement for PyPI's ``gmssl`` (3.2): ``from shangmi.compat.gmssl import sm2,
sm3, sm4, func`` instead of ``from gmssl import sm2, sm3, sm4, func``. Same names, the same
hex strings and bytes for valid inputs, with the arithmetic done by the shangmi crates.
"""

from . import func, sm2, sm3, sm4

__all__ = ["func", "sm2", "sm3", "sm4"]
