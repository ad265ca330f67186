"""Adapters to the libraries cbeal's users already work with (optional extras).

* :mod:`cbeal.adapters.river` (``pip install -e '.[river]'``): a cbeal model as a river
  active learner, and river classifiers as cbeal's learner.
* :mod:`cbeal.adapters.skactiveml` (``pip install -e '.[skactiveml]'``): a cbeal ensemble
  behind scikit-activeml's stream ``query``/``update`` protocol, and scikit-activeml's
  stream strategies as cbeal agents.

Import the submodule you need; this package imports none of them (nor their libraries).
"""
