"""The score pad: ``critter-kitchen serve``, pages and a JSON API over the engine (the ``web`` extra).

:func:`critter_kitchen.web.app.create_app` builds the application; ``web.server`` runs it.
"""
