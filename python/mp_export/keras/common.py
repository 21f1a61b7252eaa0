"""What the Keras mapper's parts share."""


class _Pending:
    def __init__(self, kind, **fields):
        self.kind = kind
        self.__dict__.update(fields)


def same_pad(size, k, stride, dilation):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2
