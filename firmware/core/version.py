"""The firmware's one version (X.Y.Z): printed by `make flash`, named in the release file
`chess-clock-VERSION.uf2` (a release tag must match it), and shown on the ready screen's last
info page (`UEr ` / ` 010` for 0.1.0)."""

VERSION = "0.1.0"
