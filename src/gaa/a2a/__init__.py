"""A2A interoperability: the remote-doctor client, ``gaa serve doctor``, ``gaa serve green``
and scenario runs (``gaa run``). Submodules import a2a-sdk; this package itself stays light."""
