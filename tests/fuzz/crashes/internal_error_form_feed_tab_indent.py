import torch


@torch.compile
def f(x):
    if x:
      	  print(x)
    return x
