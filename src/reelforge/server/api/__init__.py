"""The HTTP API, one module per resource: ``sessions``, ``games``, ``wallet``, ``rounds``, ``operator``.

Each module's ``routes(ctx)`` gives its FastAPI router (``rounds`` also its two
plain Starlette routes for the money requests, see :mod:`.rounds`); ``common``
holds what they share (request models, parameter types, the :class:`~.common.Context`
of one server), ``errors`` the exception handlers that turn every refusal into
``{"error", "detail"}``, and ``openapi`` what the OpenAPI description adds.
"""
