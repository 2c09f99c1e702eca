"""The synthetic data engine: simulated Nertz rounds, rendered as labelled camera video and
training images, and the bundled examples and samples (``datasets/examples``,
``datasets/samples``)."""
