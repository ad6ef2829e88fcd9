"""A language server for specs: diagnostics, completion, hover, definitions, references, outline.

    rulespec lsp                 # speaks the Language Server Protocol on stdin/stdout

``server`` is the protocol side (it needs the ``lsp`` extra: pygls and lsprotocol); the rest
knows nothing of the protocol: ``analysis`` (the compiler's problems and names of one text),
``complete``, ``navigate`` (hover, definition, references, outline), ``yamlpath`` (the place
of the cursor in the YAML and the schema there), ``reference`` (the documentation of the
built-ins and statements, read from ``docs/language.md``) and ``text`` (positions).
"""

__all__: list[str] = []
