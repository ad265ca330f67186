"""The studies of cbeal, beside the product: the paper's simulation study
(:mod:`.reproduction`), its case study on line data (:mod:`.casestudy`), the label-efficiency
suite (:mod:`.label_efficiency`) and the regression rounds (:mod:`.regression`).

A separate distribution in the cbeal repository (``pip install -e studies``): cbeal ships
the models, the service and ``cbeal run``; the studies that tuned and checked them live
here, with their results and write-ups in ``studies/``. ``cbeal reproduce``, ``cbeal
casestudy`` and ``cbeal benchmark`` run them.
"""
