"""Bridges to the tools people already use: Inspect AI, lighteval, Harbor and the Hugging Face Hub.

Each bridge is its own module and imports its third-party library late (inside functions) or
only when the module itself is imported, so ``import redlinebench.integrations`` costs nothing
and a missing optional extra produces an install hint, not an ``ImportError`` at start-up.

* :mod:`.hub`      ``push results`` / ``push dataset`` (``huggingface_hub``)
* :mod:`.harbor`   ``export harbor`` / ``import harbor`` / ``verify``
* :mod:`.inspect`  the Inspect AI task ``redlinebench/redlinebench`` (extra ``[inspect]``)
* :mod:`.lighteval_tasks` the lighteval custom-task module (extra ``[lighteval]``)
"""
