"""The frozen decoder LM, the GNN encoder, the graph-token projector and the GLM that joins them."""
