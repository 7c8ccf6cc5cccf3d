import torch

s = ''


@torch.compile
def f(x):
    print(x)
