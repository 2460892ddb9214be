"""Scaling out: meshes, named topologies, logical-axis rule tables and the training entry point.

Installed as ``jaxpapers.launch``. Meshes are built here only (:func:`mesh.make_mesh`), always with
Auto axis types so that Linen's logical constraints resolve.
"""
