"""Helpers PyTorch keeps under torch.testing._internal that numtorch code reuses."""
