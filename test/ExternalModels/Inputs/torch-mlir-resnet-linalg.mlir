// Written by torch_mlir_resnet.py (torch-mlir fx importer, output_type=linalg-on-tensors); do not edit.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map4 = affine_map<(d0, d1) -> (d1)>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @resnet(%arg0: tensor<2x3x16x16xf32>) -> tensor<2x10xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_10_torch.float32> : tensor<10xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_10_16_torch.float32> : tensor<10x16xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_16_torch.float32_11> : tensor<16xf32>
    %cst_4 = arith.constant dense_resource<torch_tensor_16_torch.float32_10> : tensor<16xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_16_torch.float32_9> : tensor<16xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_16_torch.float32_8> : tensor<16xf32>
    %cst_7 = arith.constant dense_resource<torch_tensor_16_8_1_1_torch.float32> : tensor<16x8x1x1xf32>
    %cst_8 = arith.constant dense_resource<torch_tensor_16_torch.float32_7> : tensor<16xf32>
    %cst_9 = arith.constant dense_resource<torch_tensor_16_torch.float32_6> : tensor<16xf32>
    %cst_10 = arith.constant dense_resource<torch_tensor_16_torch.float32_5> : tensor<16xf32>
    %cst_11 = arith.constant dense_resource<torch_tensor_16_torch.float32_4> : tensor<16xf32>
    %cst_12 = arith.constant dense_resource<torch_tensor_16_16_3_3_torch.float32> : tensor<16x16x3x3xf32>
    %cst_13 = arith.constant dense_resource<torch_tensor_16_torch.float32_3> : tensor<16xf32>
    %cst_14 = arith.constant dense_resource<torch_tensor_16_torch.float32_2> : tensor<16xf32>
    %cst_15 = arith.constant dense_resource<torch_tensor_16_torch.float32_1> : tensor<16xf32>
    %cst_16 = arith.constant dense_resource<torch_tensor_16_torch.float32> : tensor<16xf32>
    %cst_17 = arith.constant dense_resource<torch_tensor_16_8_3_3_torch.float32> : tensor<16x8x3x3xf32>
    %cst_18 = arith.constant dense_resource<torch_tensor_8_torch.float32_11> : tensor<8xf32>
    %cst_19 = arith.constant dense_resource<torch_tensor_8_torch.float32_10> : tensor<8xf32>
    %cst_20 = arith.constant dense_resource<torch_tensor_8_torch.float32_9> : tensor<8xf32>
    %cst_21 = arith.constant dense_resource<torch_tensor_8_torch.float32_8> : tensor<8xf32>
    %cst_22 = arith.constant dense_resource<torch_tensor_8_8_3_3_torch.float32_1> : tensor<8x8x3x3xf32>
    %cst_23 = arith.constant dense_resource<torch_tensor_8_torch.float32_7> : tensor<8xf32>
    %cst_24 = arith.constant dense_resource<torch_tensor_8_torch.float32_6> : tensor<8xf32>
    %cst_25 = arith.constant dense_resource<torch_tensor_8_torch.float32_5> : tensor<8xf32>
    %cst_26 = arith.constant dense_resource<torch_tensor_8_torch.float32_4> : tensor<8xf32>
    %cst_27 = arith.constant dense_resource<torch_tensor_8_8_3_3_torch.float32> : tensor<8x8x3x3xf32>
    %cst_28 = arith.constant dense_resource<torch_tensor_8_torch.float32_3> : tensor<8xf32>
    %cst_29 = arith.constant dense_resource<torch_tensor_8_torch.float32_2> : tensor<8xf32>
    %cst_30 = arith.constant 1.000000e-05 : f64
    %cst_31 = arith.constant dense_resource<torch_tensor_8_torch.float32_1> : tensor<8xf32>
    %cst_32 = arith.constant dense_resource<torch_tensor_8_torch.float32> : tensor<8xf32>
    %cst_33 = arith.constant dense_resource<torch_tensor_8_3_3_3_torch.float32> : tensor<8x3x3x3xf32>
    %cst_34 = arith.constant 1.600000e+01 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x3x16x16xf32> to tensor<2x3x18x18xf32>
    %0 = tensor.empty() : tensor<2x8x16x16xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
    %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %cst_33 : tensor<2x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%1 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
    %3 = tensor.empty() : tensor<8xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_31 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.truncf %cst_30 : f64 to f32
      %71 = arith.addf %in, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<8xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<8xf32>
    %expanded = tensor.expand_shape %cst_32 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %expanded_35 = tensor.expand_shape %5 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %expanded : tensor<2x8x16x16xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<2x8x16x16xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.subf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x16x16xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %expanded_35 : tensor<2x8x16x16xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<2x8x16x16xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x16x16xf32>
    %expanded_36 = tensor.expand_shape %cst_29 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_36 : tensor<2x8x16x16xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<2x8x16x16xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x16x16xf32>
    %expanded_37 = tensor.expand_shape %cst_28 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %expanded_37 : tensor<2x8x16x16xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<2x8x16x16xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x16x16xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x8x16x16xf32>) outs(%0 : tensor<2x8x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.cmpf ugt, %in, %cst : f32
      %71 = arith.select %70, %in, %cst : f32
      linalg.yield %71 : f32
    } -> tensor<2x8x16x16xf32>
    %11 = tensor.empty() : tensor<2x8x8x8xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%11 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %13 = tensor.empty() : tensor<2x2xf32>
    %14 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%10, %13 : tensor<2x8x16x16xf32>, tensor<2x2xf32>) outs(%12 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %padded_38 = tensor.pad %14 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x8x8x8xf32> to tensor<2x8x10x10xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%11 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %16 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_38, %cst_27 : tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%15 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_25 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.truncf %cst_30 : f64 to f32
      %71 = arith.addf %in, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<8xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%17 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<8xf32>
    %expanded_39 = tensor.expand_shape %cst_26 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %expanded_40 = tensor.expand_shape %18 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %expanded_39 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.subf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %expanded_40 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %expanded_41 = tensor.expand_shape %cst_24 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %expanded_41 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %expanded_42 = tensor.expand_shape %cst_23 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %22 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21, %expanded_42 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %23 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22 : tensor<2x8x8x8xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.cmpf ugt, %in, %cst : f32
      %71 = arith.select %70, %in, %cst : f32
      linalg.yield %71 : f32
    } -> tensor<2x8x8x8xf32>
    %padded_43 = tensor.pad %23 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x8x8x8xf32> to tensor<2x8x10x10xf32>
    %24 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_43, %cst_22 : tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%15 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_20 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.truncf %cst_30 : f64 to f32
      %71 = arith.addf %in, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<8xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%25 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<8xf32>
    %expanded_44 = tensor.expand_shape %cst_21 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %expanded_45 = tensor.expand_shape %26 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %27 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24, %expanded_44 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.subf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %28 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27, %expanded_45 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %expanded_46 = tensor.expand_shape %cst_19 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %29 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28, %expanded_46 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %expanded_47 = tensor.expand_shape %cst_18 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %30 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %expanded_47 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %31 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30, %14 : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x8x8x8xf32>
    %32 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%31 : tensor<2x8x8x8xf32>) outs(%11 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.cmpf ugt, %in, %cst : f32
      %71 = arith.select %70, %in, %cst : f32
      linalg.yield %71 : f32
    } -> tensor<2x8x8x8xf32>
    %padded_48 = tensor.pad %32 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x8x8x8xf32> to tensor<2x8x10x10xf32>
    %33 = tensor.empty() : tensor<2x16x4x4xf32>
    %34 = linalg.fill ins(%cst : f32) outs(%33 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
    %35 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded_48, %cst_17 : tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%34 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
    %36 = tensor.empty() : tensor<16xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_15 : tensor<16xf32>) outs(%36 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.truncf %cst_30 : f64 to f32
      %71 = arith.addf %in, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<16xf32>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%37 : tensor<16xf32>) outs(%36 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<16xf32>
    %expanded_49 = tensor.expand_shape %cst_16 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %expanded_50 = tensor.expand_shape %38 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %39 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%35, %expanded_49 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.subf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %40 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39, %expanded_50 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %expanded_51 = tensor.expand_shape %cst_14 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %41 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%40, %expanded_51 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %expanded_52 = tensor.expand_shape %cst_13 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %42 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %expanded_52 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %43 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%42 : tensor<2x16x4x4xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.cmpf ugt, %in, %cst : f32
      %71 = arith.select %70, %in, %cst : f32
      linalg.yield %71 : f32
    } -> tensor<2x16x4x4xf32>
    %padded_53 = tensor.pad %43 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x16x4x4xf32> to tensor<2x16x6x6xf32>
    %44 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_53, %cst_12 : tensor<2x16x6x6xf32>, tensor<16x16x3x3xf32>) outs(%34 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
    %45 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_10 : tensor<16xf32>) outs(%36 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.truncf %cst_30 : f64 to f32
      %71 = arith.addf %in, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<16xf32>
    %46 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%45 : tensor<16xf32>) outs(%36 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<16xf32>
    %expanded_54 = tensor.expand_shape %cst_11 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %expanded_55 = tensor.expand_shape %46 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %47 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%44, %expanded_54 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.subf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %48 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%47, %expanded_55 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %expanded_56 = tensor.expand_shape %cst_9 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %49 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48, %expanded_56 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %expanded_57 = tensor.expand_shape %cst_8 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %50 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%49, %expanded_57 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %51 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%32, %cst_7 : tensor<2x8x8x8xf32>, tensor<16x8x1x1xf32>) outs(%34 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_5 : tensor<16xf32>) outs(%36 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.truncf %cst_30 : f64 to f32
      %71 = arith.addf %in, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<16xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%52 : tensor<16xf32>) outs(%36 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = math.rsqrt %in : f32
      linalg.yield %70 : f32
    } -> tensor<16xf32>
    %expanded_58 = tensor.expand_shape %cst_6 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %expanded_59 = tensor.expand_shape %53 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %54 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%51, %expanded_58 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.subf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %55 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%54, %expanded_59 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %expanded_60 = tensor.expand_shape %cst_4 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %56 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%55, %expanded_60 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.mulf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %expanded_61 = tensor.expand_shape %cst_3 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %57 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56, %expanded_61 : tensor<2x16x4x4xf32>, tensor<16x1x1xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %58 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%50, %57 : tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x4x4xf32>
    %59 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%58 : tensor<2x16x4x4xf32>) outs(%33 : tensor<2x16x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.cmpf ugt, %in, %cst : f32
      %71 = arith.select %70, %in, %cst : f32
      linalg.yield %71 : f32
    } -> tensor<2x16x4x4xf32>
    %60 = tensor.empty() : tensor<2x16x1x1xf32>
    %61 = linalg.fill ins(%cst : f32) outs(%60 : tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32>
    %62 = linalg.generic {indexing_maps = [#map1, #map3], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%59 : tensor<2x16x4x4xf32>) outs(%61 : tensor<2x16x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.addf %in, %out : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x1x1xf32>
    %63 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%62 : tensor<2x16x1x1xf32>) outs(%60 : tensor<2x16x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %70 = arith.divf %in, %cst_34 : f32
      linalg.yield %70 : f32
    } -> tensor<2x16x1x1xf32>
    %collapsed = tensor.collapse_shape %63 [[0], [1, 2, 3]] : tensor<2x16x1x1xf32> into tensor<2x16xf32>
    %64 = tensor.empty() : tensor<16x10xf32>
    %transposed = linalg.transpose ins(%cst_2 : tensor<10x16xf32>) outs(%64 : tensor<16x10xf32>) permutation = [1, 0] 
    %65 = tensor.empty() : tensor<2x10xf32>
    %66 = linalg.fill ins(%cst : f32) outs(%65 : tensor<2x10xf32>) -> tensor<2x10xf32>
    %67 = linalg.matmul ins(%collapsed, %transposed : tensor<2x16xf32>, tensor<16x10xf32>) outs(%66 : tensor<2x10xf32>) -> tensor<2x10xf32>
    %68 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["parallel", "parallel"]} ins(%cst_1 : tensor<10xf32>) outs(%65 : tensor<2x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x10xf32>
    %69 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%67, %68 : tensor<2x10xf32>, tensor<2x10xf32>) outs(%65 : tensor<2x10xf32>) {
    ^bb0(%in: f32, %in_62: f32, %out: f32):
      %70 = arith.addf %in, %in_62 : f32
      linalg.yield %70 : f32
    } -> tensor<2x10xf32>
    return %69 : tensor<2x10xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_10_torch.float32: "0x0400000000A0FA38403BB1BB540DF43D22415BBE8080733BE897AA3D7847023E2025D63C90C8FDBD84C375BE",
      torch_tensor_10_16_torch.float32: "0x04000000A86D0CBD50123E3E2C20C8BD421B0CBEFAFB35BE123C02BE7ABD763EF8EDF8BDE4E08CBD08C4E63DCE9D44BEA4611BBE0A6B3C3EC05FC4BD1CD704BEC07B04BD78E911BDC0233B3DC8B5BB3D486345BE9CA4683E906473BE1868AD3DCC7690BD2037D8BDB8776F3EFAB176BEC0DE8B3C760A243ECCDC643E226D58BE40C0F63C00487D3E6AC27ABE301D7A3DF46620BE983B263DD89267BEE0E7FB3DD02963BD20FF183E006076BBE8F511BD289C78BD76676ABE447AD9BDA007083CB20D46BE76AA603E607E26BE9C78C7BD38F008BD44604FBE807201BBD48CF6BD304856BE00F0C83B42A2623EC8287C3D6825533E003920BB40B5B2BD44534E3E185308BEB0D36CBE901D603DF82AFF3D1C0719BEAC34B43D24A6B5BDA07DF8BC68BB62BDB0065BBD3C4C50BE30F77A3DACAD86BD28BF433ED0EA2A3DBA5C51BECAC042BEFA6A05BE642FF53D084925BEE439EABD20E8393DF87B31BE2C1FFCBD1223683E785807BE7C95AABD6217373E5076653D2EEF483E8E8861BEC0EBFF3D00A11CBD660124BEAC49DBBD489F77BE2E18313E807C44BDF6047BBE7AEF5A3E04D0253E00B4D33D128E7A3E8E2E673E3A3F6F3E2A41653EA00B503E3809863DD082ABBCA0C41B3C98C6D4BD3091F03DC053ED3B9896713DDCE624BE58C8C0BD84EC3F3E0031C73CE0AFB03D6A7D5FBE7440DBBDC07DD0BB70E8D6BC926A233E88839ABD2CA8553EB00C46BD5024C73D2E3B34BE98CE2D3D789579BE24A55BBE62D723BE84568F3D00BC9E3CF036C63C1007E0BC9A1A573E12C77A3EC470D93DD4954B3EC06E4ABC3C3ABCBD3813473D4454283EC8421EBDA09044BEB014A93D508482BD5876F6BD02B2213E00070BBC005612BEEA2E19BE3417713EBC83263E2A9137BE",
      torch_tensor_16_torch.float32_11: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_16_torch.float32_10: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_16_torch.float32_9: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_16_torch.float32_8: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_16_8_1_1_torch.float32: "0x0400000047B2C2BD77EB4A3E67CB373EA795E53C8AF368BE828385BE92D498BD151C053E56631ABDDB5897BEDF74B1BDF4AFB43EB09D95BEFE7C8CBE9596633E921DB43E4722AEBE8AB8A3BE9D68E2BD8B7BB43E377A4DBE11A2F73C5DC5933E382A00BEAB0CDEBD2D0373BE1F695E3CA5F5A83ED30A143E2F797E3E5BE2BFBCD20566BDFF5B81BDD47C4E3EB5E43DBD3DA09ABE2C42FEBD87AF0D3E2F7DB03E21A983BD649B9DBEAB4985BE5D6D8EBE65F0113E3F6F853E7F22D63D7CA8F93D72DC6B3E8088773E5C2F583EB3734A3E8FEDC33DFADE3A3E186B78BECE546ABE38BCC23D6A5D613D59239FBE4EDF83BEE31A90BE18C58F3E48B36C3E278F3EBEBA7F5A3D068BA6BD675D9D3E9CF4A3BE960F84BEDCB596BEDEB2523E88FA34BE42A2573EFCC2F43D38F630BE320FC3BDC18212BEDEB81F3E6D3011BEBDBAF53D5EE9CE3C2E9090BEF29463BE33077BBED5B43D3EDCE49C3D45A611BC9F9257BEF55AB3BEDC1E00BEB28A8ABEA90DB4BE28A6ACBE4D7B6CBEECF9AFBEAAB6E13D0677073E17ED113E2D34B4BEBADE5F3E302B8D3DCF1F393E1EF6B1BD33DB2D3E74AEABBE42A0F63DB18A8F3E4530183E93A1AABEF743CBBD71D633BD08B13D3E07FF08BE8948503D1F30FEBD330D66BD779EE6BB79E34FBEE6497BBE2C70953EA117983EBD5E2FBC4AAF9C3EAC7D8B3E9D0A64BEFDDB0FBE48AA78BEE819EA3D007F123C",
      torch_tensor_16_torch.float32_7: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_16_torch.float32_6: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_16_torch.float32_5: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_16_torch.float32_4: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_16_16_3_3_torch.float32: "0x04000000D6B287BCC637F43C1C5B89BD13245BBD00AF1B3DD8CBA8BDD0E66A3DF79883BD00E0AFBAF0238C3C03B0063DC6DA53BDA0BC373C4BF9123DE761923D636F80BD8EB329BD36DFC63CD6522FBB4B5766BD48A48FBD3A8A97BDEED86EBD3B5411BD8E056DBD83B795BD2B27D53B562D483D28EF20BDC087083CABA686BAF38C1F3D8EB76CBD80A4813BA74C9F3D28AF733D8E26A9BD60894DBCABA24B3AF669E1BC504060BD3B826DBD0BCE623DCB02DDBCD6BAAFBBC050C83CCE8151BDAB63F33B83074B3DD69247BDFB9CC63CAB893ABB66AD3B3D2BCF623D861DB53CAB04253B44EA92BD40E7073D6E19503D3BF6F7BC5376A9BD624D8A3DB63DA0BC2B95883C40E7BFBCA0AD593D9B72A63D00F6553D2041D9BCF6336F3D238C263D7634053CFE7789BDF39012BDF7DAA8BD934B643DD3B3A83DD8D4463D1020DA3CA657A13C834AA43D800C2DBD4630E5BCE83C99BD403307BCC04FBB3B8BDFBA3CD0756DBDD6FE1DBC27A18CBDBAD38ABD6BF6313CBF98A6BD7BC7B53CC8379DBD30826DBD90A68DBC30DDA2BDFFD5893D3AD68B3DCE4932BD4B018F3C1B9E2E3DE0EED83CF6E436BC87F9A0BD5E32783DF2B095BD00DC7CBC2B63A93BB0D4E0BC46B0F9BC8E8093BD2B75963BE0061BBCA2C9943D90BFE0BC2CE9833D1645813BE05A19BDD059A2BC8BF01ABC5647623A36F160BCDB98CA3CF88B8C3DA09B563C4645F73CC0C7523D6B26933C3E581D3DF00B333D0BBF9F3D74C29BBD469AE93C007677BB603375BC2E9903BDB6354D3DAC1F9C3D83478BBD636A383DC65D6B3DEB9F6E3CABAA803A1A55833DABEB213B1046AABC16A5C9BBFB05DB3CF0E5AA3C005493BBBB7ED73C36DBB73C04408ABDCB1AAA3CC3D7503D36941C3C163FF9BB6CBC823DB71B95BD08CC1BBD8E471ABD0477933D9012A5BD2069073CAC52A5BDD69633BB9674FE3C0BA59FBC13ACA53D56158B39A3052EBD5009B03CE383313DAB9A2DB93A00923D0E0958BDBBA3113D3ED2413D8B89293D563500B87BE0C23CD3E385BD80EE85BD96BAA9BB161F2BBCE3727D3DEED9773DB670673D88571CBDCBFA85BDCC15A0BD8010F73CE3C899BD945EAABDCB802CBD331890BDEB8306BD9EE256BDA81D2FBDC841A23D76A580BC18938D3DAB58F23AC0922FBC66DFC7BC8EFE73BD2E1F89BDBE586C3DCB5ED2BC8365A6BD38A09C3D569CCA3A436764BD342786BDC6528FBD63A695BD9E709A3DDE586B3D6B57DF3B6F7491BD7B8DB2BCC852A0BDBB42EB3CEB42B5BC401692BC5000D5BCDE08203D98C2383D708B953C4BF92ABC80ED06BC00DCBEBABE2D7EBD0A88A63D0B3613BD0E97463DCB593FBDABA6123A0BB2E93CEBB39CBDCE911C3DCBA282BDF6863E3C505F87BC03A9433D02DFA53D86D9993C80F11BBBA01C29BDD685FE3C9B4A24BD58FE0C3D7BF113BDFE87673D50E8823DEB4C513D56D35A3A8B4A1E3D5C849BBDF4678A3D7B5DB1BCE0DEF83C203467BC063BE5BCC04A20BDF62A5C3DC0B339BD36C570BC862F2C3D8B9B093C4E998FBDE6B4A9BD73F225BD9F689D3D63B272BDF01E3C3DEE54743D567B0DBD30BC16BD4E9175BD8BF7543C76DE3EBC40AB843B960E143D2B4E0F3D1B61D7BC968BBB3B402AA23CAB80E83ACB9B883C48450ABD17E48B3DEB0A0CBC20B02EBCEE2C99BDF36B77BD56E2293B4B2753BC939D2BBDD0AB323D0077F4BBF615F03C2EBF8F3D4EED1CBDABFE27BD102E89BC563CE7BBE0B82ABDC0E5A3BCD66A1DBBDE1B193DFCE49D3DA6C27C3D0080103CEB13ACBBF0DDAE3CD6F05EBB962E33BCB6BFEA3CBCDA8ABD262491BD56F9B0393BEACEBCAED428BD83E19EBD40A5643DD69959BBD36337BD460A0BBDA679B33CFE8B77BD4061AF3B56B286BA208FE83CCE67073D28055FBD7662133D9CDF803D80CCAF3BCEE42D3D7B3901BDFB98873C6079C73CE3A71DBDC3BE523D685DA1BD963700BD1BD648BDCEA04ABDD8D44EBD50D1A0BD6B506A3CFB0A87BC03B48FBD00C00FB86B7063BC20CF0C3D4BAE85BD2B0DC0BC2B848C3CCBAF103D1693CE3B6000B93CAE9AAA3DE67BECBC4EA2683DA202933D7AF996BD1622A53C1B59413D76F954BC9E613C3DD6C2393BF8EC813D562EEB3A7E875ABD609C813D2B07CB3CAF32913DAB77A93C1E40353D43D3543D6BE7653C5BB29EBC86FE8C3CA3FE6DBDAB933A3B406BDBBC00A5AC3B772087BDFB8F503D8F759DBD4E2C123DE3C9603D526A9CBDF6329A3DE3BD7DBD860D86BCD3E0303DBB79D8BC7818983D839416BDF6CB36BCE31F5FBDC35A1EBD5C8BA63D285A803D800FC93BAB85E03BB2D390BD2BD8803DCBB34CBC385E0EBD04D287BDA6518C3D23DB213D4E984D3DC05F0D3C639E67BD68D20B3D76761D3CF015E53C60FDA9BC961421BD0F1B8C3D5BD7E43C86880ABD80D8F33B1B6594BC8084E9BBE6673F3D34D687BD80759A3D86BC653DAB2A9638F09D0BBDA0308B3C70EE61BD9EB65D3D8E8434BDBB70823C3BE8A7BDB674233DA810673D5B19803D16E4DE3B3689493D46C3E83C53E7643DF89D403D325295BD4BEF0F3C9BBBE8BC40FC22BD9BEB6E3D966943BC6018543CDBE9563D53C2653DFB28363D4B5F6EBCA22198BD60D6A3BD1095D63C009F81BA93A857BD4B12153D94E99A3D2B6B453D0B9B40BCA07D383C73B959BD5E1B213D074284BD68A76B3D5BE71BBD966007BDCFF38EBD3B15A5BC4B1104BCC3541DBD4BFA723D7BE4433DCE9F96BD4B9308BC8085E53CA3A8A43DFB3BA3BC068E513DD6FA98BB80EA02BDF8E1503D531498BD0FFC8E3D7F77AA3D7662BABC8BD5063D8630AA3D4BD0CD3CEB7B053DC0ABFA3CEEA50BBD46A3A63CF3EB35BD13BC913D264412BDA00F9C3C06C1C5BC33B32A3DAB0AB43AE8AE3B3DD0DAB8BC634C48BD66DD023D931840BD601F8CBDAEE0033DE3494DBD6E4C00BD6B75AABCD6E5C13B2B6FECBC6BB1F5BC9694ABBC20346F3DBB68CC3CB05424BD9EF06BBDAB14FD3AE0B3DA3C5691E4BA30D0473DAB8C8F3D5B15C83C6B24E13C7807463D20DEE9BC562F723C3AFB893DC87323BD8086D43B887205BDCB3A83BD5ECB343D375F883D7E6638BDC6DAFF3CE055D13C5347053D48E43B3D3A559F3D3C89813DCA5595BDDECF05BD7848353D80DB42BDD60B863CBB5412BDB095873CE68C263DFB91D63CEEF4773D2B4C24BCCE4C393DD0B2DC3CCB24D7BC7E1271BDB0239C3DC689CBBCEA8C803DA627573D2BEB5BBBDBF88CBDC0D4DB3BEB0125BDE0A3B13C0EAD07BDB38A833D4CFB99BDE6C6B7BCA04F573CAB3F023C78358C3DC6B2D7BC473C88BDB8FD613DF0C1BE3CD8D9603D20054ABD087B48BD6EE109BDAB24C23BF053E73C182644BD2B8C00BCB6F96BBCF7B89B3D7B32F6BC5663A53D9B5951BD78A60CBDA25D80BDDB757B3D46BA6ABD084A0D3DC0DAFABC2812AA3DE096403CB63594BD96FA6A3C0BFF253CFA11A5BD3B01893C16D5A23D8B74C43C5659E8B9B0848DBC7669B53CBE1118BD0F11A83DC288933DA8751F3D5B47FEBC903FA0BD107F44BD34F0A53DBAA69CBD68F4A2BD2BCFC4BBCB30D93CFBDCA9BD5C739EBD5689ED395BFDE4BCD3CC6D3D4600C43C7C2494BDCED299BD48696A3D361A72BC985115BDE606D73C002B86BCE63D233D161EAD3CD0C913BD9CC988BD33C7383DA6134DBDEB0217BC00AE3A3C0BA546BDC3EE393DF31670BDD6AAA73C0B06123C567AFA3CC67EA7BD00BD9D3BEE66263D06875ABD3BEDA83C5631AB39FAC8903D708D90BCAB3E153A687514BDC63EA8BC8B6EC33C3E99A4BD1078813D0374753D9E8D103D70857F3D4681D4BC9B7E9B3C00EC8A3BB8076CBD603903BD8B5AF2BCABCAA8BCA28A97BD680E70BDE0A701BCE0B24FBC0BEC9ABD16DD913CA8DA393D30228E3D3BA28F3D1E836EBD50C8DABC70ED21BDA06A7A3CD6EEB63C50E2973C1077473D7014343DA83537BDB6516A3DB640663D76AE343CEF7B94BD335951BD303EBE3CD606EC3C5E239F3DFBB82D3D966DF73C00453ABBB3BE683D2B7BF8BCD6FA0A3D9E9222BD56E54BBAE8B9493DF89E1C3D903199BC004E8ABA487C3DBDE81A1E3D48AD653D36FDEA3CD025A5BD385874BDF381643D967E43BC669F513D66997B3DD6F8C7BC8B4448BDEA8FA0BDFE90023D80102F3DCBB36CBC00B0A5BD3BDB5BBD402193BB20C91B3DEBBFE4BCAE595CBDB6A06DBD54B3983D8B35F73C2F918ABD53CC52BDCAE090BD008A453C889A0ABDABE693B94BFE57BC466495BD1B8398BDBC5F84BD38F40EBD565B543C6B8520BD00AB42BB408B23BCDC149C3D869A1BBDDB58A03DBE0483BDA6648EBDB6FFDD3C83A746BD00142F3D7ED73CBDDC64863D5341A53DEBD0AE3B40E6913CB21D9F3D16594A3D6EFD94BDABD22EBB960E9ABDB85E823D20157ABC004618BA2EB651BDF89939BD9631313CEBCF8C3D7B922BBDEB03013C167D9A3D2AF4983D207785BC94F59F3D1B9BF83CD76F9B3D2B09223B9EA390BD16D3B9BCA6C0CC3C3306363DFE04AABDC4C0843DD71999BD86FE473D1A64A83D7B3BA83C30D780BCA3F03B3DFB9DCABC36D67CBD763D72BD207D203D9E57823D00255D3B087AA5BDCCB2A7BDB6269ABC2042383D807663BDAB01B83C06903ABD5EDB8A3D40E1B2BC66448EBC3BB095BD5EDD98BD2B8DB83B2BC35C3C4869383D643C95BD0B3C6F3C403C45BC8639483DF0331BBD8062CB3C068C093DF0762B3DB625EABC86B0DB3C66CA85BCFBD3B73C0EE351BD039D87BD5F9A8BBD489256BD337610BD8B3B4B3C1B5395BC165042BD5683373A7B95D7BC8368523DDF8F8CBD6BFAFBBC205A5BBD4078283C40F9943B96159DBBB755A93D903602BD003D44BC365FB03CC0708E3D7F5C813D40F91B3CB02201BDC644E03C10C3563DAB1AE9BA4B673B3D5EAD8B3D2BE036BDE0EB96BC62A799BD5BB59C3CD343733D5B9184BC60DD593C9B22DA3C00F9E8BAE8AE843D56F5463C8EC1A7BD26EF8CBD3317A9BDAB18613B8B83383D0B2134BCD872993DA0A075BC4B928B3CA7E5993DFBBE2C3D803B2EBBDB63A43D3EEF4BBDD646FE3C8B90573DCB5953BD8C50A0BDF65BDA3C807F01BD43402CBD3BC9873CE39C77BD8E7F993DEB1EF5BB2BA0DABC94AC8E3D3015BE3C3010823CB83323BD78A8A23D3BEBCFBCD8F28D3D2BBAC8BBC3392B3DCEFF6F3D9E1F7EBDF07F63BDB3C3A8BDE330763D5AC5923D707EF9BC902D27BD208B643C4EC4373DA081A83C46468EBC101D59BD3AF7913D580D5DBD40EAA4BDF84808BD1621883CB0BDFD3C80FB033DE6BB45BD130003BDB6C817BD3E4B25BD7CBF8FBDDBBD8B3C0688C6BC8844A4BD784F47BD83FC4CBD0E3D13BD4BE952BD6BC66CBC70A4F43C771F8ABDEBEBE9BBE676C4BC6E822EBDC09597BCF0AA10BDD6912F3B386476BDCB75813CD0B19C3D936A8D3D380A19BDCB6AD23C9A50A1BD12B18F3D9414AABD208398BD043299BD837D9EBD2BE8383CF684B4BC0065A33C2BF5A8BBABA1EABA80A2F6BCE3824ABD42E48EBD333B2C3DC3FD2FBD06D78ABCA8C8253D0B12A9BCBB1FACBC608C63BDC30592BD26D4233DA0059ABCD0A1563D16B9B33BABFADDB8FB139ABDAB26F13ACB479ABCCBC642BDB0FE9DBC80C18E3B269880BD5608633C3E816D3DE0DB863C0CE9A23DD0471F3D9A9886BD8B5A06BD6647A4BCF636CC3C00C41BBBBC55893D0B9B1E3C862B58BDC046FABCF0FC8DBD3B3BBCBCA3D1273D56F3523A9CBFA2BD70AD93BD867FF73C6ACB95BD8B2088BD0E824BBD60AAA23D061DC2BC70BB0CBD007966BD765A5A3D6B755CBC56A4833C0B15A33CBB87C03CCB7B5A3D2BB48D3B0B3A0D3C6B54B1BB979E84BD263A9CBCC76EA23D1BE971BD286B57BDDB5AA9BDD694A53BDCA09FBD36D42EBD60429D3D485E0D3D4BDA353DA0C9693C720791BD43D41EBD272A8ABD061153BD6B7AE83C2657BDBC48C9A63D3ED178BD0EA691BD4684A83D726E93BDC239913DB6D3B73CEB8D9BBDABA5943D20DAB9BC98BE0CBD0E2385BD935B90BD8BFE973C9CA3A7BD43430C3D76B1A8BC4094EF3C1025A7BC2B14EC3CAB2E15BBB6A5C83C7EDE0ABDE6C86ABDD6E12D3CA6DD59BD8E9853BD8C1BA4BD3699D9BC301364BD3EE8843D3BFB753D0BF9A13CE4AA8A3D585B243D98C5A0BDCB9B08BCC09F5DBCBE3E4FBD506EC23CC011D5BCE83723BDABA87EBA3EF162BDA4408D3D36FD573D4F8DA13DEBD371BCA0F4DE3C80AA5BBB23398DBDD06C1A3D2B6B6EBD0B6EF6BC7BDB18BD447FA6BDABE3433B96AC5F3C6B02CBBBE8087B3DC0ED823B76B178BC882D3ABD3BB84ABD401C42BC7B5448BD1B2B61BD169534BC401271BC8E5B50BD0370473D0CBD903D10BB68BDD681153DD8611EBDA0C40DBC6F519F3D40B52E3CE7B9A2BD57E49C3DD61067BBCEEA2ABDF64234BD2F5A923D5658B83AC3873C3D7855603D737B04BDD6C5E73B16CB5CBD0E848E3DBE7E34BD73B8623D70F7AC3CB88E523D407E70BD56D729BB7EDD303DABFD59BB00B99CBA5655263DF81C7FBDFBDD88BC7B791B3D1068273D20839E3DE00A87BC10C0A13CF6F127BD762665BCEB5A2BBDA8F37C3D0012053ADBDB0A3DC3BF3B3D766D7E3C164C113C96DCC7BB449190BDA0FA5B3CA63D97BC3F738FBDE3019F3D568E11BCDE5A2ABD9E25A6BD23319DBD1BFB013DF8D11BBD637213BDB68045BD6AC3893DF61AA4BC063F5D3D307D873D735184BD68A67E3D4B5C82BC9075A33DE0582E3D6652A5BD60A67D3C90F9EF3C16A7F7BC176B813D57558DBD3B9DD8BCC49DA23D5FAEA63DA8822A3DF6C14BBD82D792BD84C38ABD76A8AABC305D413DE621D83CABCE25BC3A7D993DE204863D7B881FBD08D113BD562680BA60AA8D3CAB621CBAC3C6033D90806B3DAB2F76BC43A0273D60B1393C8305033D2E850C3D0677B6BCD62F18BDD8E5113D068A5ABD6833333DB0015BBDA62A6A3DD6F4083D363EA7BC9E1A433DE6D1E0BC3070913C4BFEC83C80700B3C2B17893C56D6D8BA3B38C5BCE66E3E3DEBA1063DA0A1FE3C7870663DA89732BD0B9C9EBC00AA1BBBB2B9893D5AE787BDE0C943BD7B9CA2BC9BC891BDABD686BD0ED2693DABC37E3B1F4C89BD4B7161BC2B8D33BBF0B2F2BCFFC08EBD1BC4393D6BA228BCA3A0A63D40B582BD43633BBDC0DD8DBB46B26DBD1EC1783D1BFB833DE29C9A3D7B7857BDDEDB723DC6FF6C3D9BD007BD96D1153C06A7223D2E41743DF3669FBD54E9A93D30A3ABBC16130B3D96FF53BDDC5583BDB02967BD9E2A493D4B5E28BDB06B463D3B61CE3C43C6073D70D797BC80F1D7BC03B41FBD66CB3EBD2A5C9D3DAB6694BB386012BD03CA9EBDD6956D3B0069A9BD569E80BA3E85573DEE9844BDCB8A3B3D96C3D9BCF24283BDF008A9BD4091293D689382BD48AA263DA07C433C4383393DE44980BD3B3F953D46FDA9BDC28A81BD83B14C3DD69B393BAEAB3FBD06338FBCDAE197BD628894BDA67692BC8731823D00E0CB3C26BB803C10EDB4BC0B569B3D0038513A1B81E63C569BAD3A000E553C9BA5E33C60F7823D6679443DCBBB2E3C0E77083D9B4CCDBC6B50693D36A3BF3C7ECC803DD62C55BC5F588BBD9BDB863C80D30A3DF8E6893D3E4C043DA03AFC3C43D1873D209BEABCB6AF963DE8FF2E3D3BF5633D806F733DBA6E8BBD4EC9313DC3F29E3D3BCB6FBD6B09EABB465050BD10D8A4BC00794B3C0B95363D5B30C6BCAB9BA1BDB34E383D9B7F3F3D808477BC941A923DEA90833DB67696BC80E5523B0081703C4BC685BC2B2FA8BCE8131ABD961C42BD68772A3D16B6CABC2EC023BDE256963D764B5A3C9047763D04879B3DB65540BC96A84B3C543B9E3D6ED96ABDA0AECCBCF648423CC041B9BB80C0B53C8B7B333D4E6E0CBD809FD43B93679A3D002541BDA67767BD73E282BDF6084C3D7A8A9CBDA0FD25BDDB88663D6E9F4CBDE3C98A3DA38F1FBDF6FE573C76B9323C2BF505BBF898543D70F3903D9E1D55BD5E6E3F3D4B66B63C008ACBBAB8A96EBD4B81CA3CA6C0773D6A7D92BDB29E9DBD98C7A7BDE0BC9D3C6027C4BC1B0ED4BCEFEA9E3DEB1FAEBC4BC358BD80A0F53B3E583BBD7B04C8BC5E4D343D268E9D3CE03A6ABD307BA23DF3EE663D88AE68BDCBAD143DAB420C3D90EC74BD08E36FBDEE508DBD000C183D00E06D3C0041103D20EC15BD0F54803D8B562E3CFA2D88BDE6D3ABBCEE312E3D4B1B963C40DF50BC90796EBD2B5554BD9F34933D288743BD1EE2713DD07FE4BC565B5A3A8831A6BD16E9DDBC56DE8F3D773999BDF6BE2B3D63A18FBD3623473C8CBB9ABD081B87BD5FC789BD00B7ECBC76E6393C8E417ABD3003AD3CE0944D3D94208B3DBB1D973DEBBA603D3B05C9BCD6A7FBBB6600973D9ECC293DC609B5BC6ADA803D5C2695BD7211923D60FA3E3DD35A7ABDAE328BBD3B77853D665DA83D5649EE3BFB5E05BD0E5C423D8BFD193D80652ABC7FA3883D5B3E5D3D7B30AA3CDE3A313DE4DC9FBD2EE21FBD6BAA153C76A5B93CD6A73ABC18E2003DD6F5CF3C17BB9DBD5653D73C8004DEBB10E36ABD2B4F383B00E5A7BCFB4235BD8E849BBDFCC58E3D604A4FBD2B61373C97B8883D16022CBCF3B65FBDDF1CA5BDE0DA623CA6442BBDEB22C73BE60EDA3C466CC1BCCE70673DE0AB31BCC03808BD58B061BD4B1FCF3CF30753BD9B808F3C8B512CBC43956A3D1E5627BDFE2528BDCB7230BCEB7A50BD9B21023D6B0FFABC680A0C3DBE19463D0351473D4BA67ABC28473A3DDEBE34BD2B0BAABD4BF001BC4B7D77BD633884BD0088AD3CBAD6913D785306BDC0779ABB4B4B77BD16A16E3C50A0C23CF69551BC26D9813D735B89BD562F37BCCB763DBD08DB953DA08E903D7FE0A73D58059D3DF62F073D94AE82BD268867BDB0A6A33C2B5F98BDAE17583D6664143D6BE1A23C2EF694BD604D783D368010BC833C0FBDA836323DC0C1E63BBED617BDBBC79F3CF09E63BDB89E9E3DC096953DB06A1D3D2693343D04A7A9BD30BE3DBD183AA4BDABE731BDCC7E8DBDE83E7B3D4E27383D0304493DA08717BD7714823D564A45BC06DFB0BCF3C8373DAB0A623DA35375BDCE7AA23D6BCD09BC50D2B53C66F0A9BD16FF173C70EE28BD03B955BDFE830EBD0084CBB99B7AC2BCF8A75ABDB063743DC017CB3C7BD49EBD8B338F3C4BB2A73C00AE483BDBC4A53C969FE4BB9647153DAE4A70BDCE8911BDE6B17F3D487853BD0878273DC4E99D3D370F9CBD2B8A15BD7EA4913D801DA5BB86C4863C4B50423CC6A90C3DE0A30CBD2B40313C8082683DC05DE6BB46949CBDA6F7EB3C7646AEBC6B0590BC7304323D8B476F3C867D4EBDE6831DBD368B4FBCC6A9A8BC368590BCEE4D69BD5645773DDE05313DB6B8863C00929A3C4BD61F3C003A7F3D7B799A3CEBFB4F3C7BA23BBD56BBE33CA8AA9FBD204ED73C9BEE93BDAB440DBDFB33343D604D4BBDB6E5873DF8973CBD67A7A13DF667D23C10EB13BD082C503D232497BD463B58BD46D955BD80BB333C6B22063CA8CA92BDC7AFA43D5605A7B8584536BD5673023BBB8412BDA057BC3CB621F73C60A5C1BC56319F3B98184B3D8E035EBDFB3998BC966B49BC9ED461BDC067DE3BD6B7483B34DA89BD460A8C3C47E5A23D968D353DF62639BDFB389C3D68A16ABDAB8C2DBD4E8F163DBCC5873D66DDA23D5EEE923D28F43BBD5B369C3CF85356BD5635F13AEF658D3DD811283DD2969DBD88E612BD9CFF8FBDD8CA203D80522DBCC38579BD5B24DABCE006E03CD6CDFC3B4623A03DAB0391BACBBCD63C56CCCEBC2BEC223CD6A4433B7799923DB3050F3DEE8542BDABA597BD0061A2BD80EAF7BC767D303CB38EA03D762606BC4B75053D68792D3D12BB82BD9A2D8DBD3056013D40191F3DD3EF1EBD76F5553C031AA7BD56AD893A5056A73C56C74E3A20B858BCB3120E3D6BA4BBBC1E167E3D0F0093BD281243BD687A8EBDF3599ABD730C7D3D06F1A8BC321086BD76978D3C033D81BD40288D3B8643223DBB5A90BCA6782F3D1B1D8C3C27F388BD705C863CA0095C3D70419EBC6009013C602E2E3CD6D0EA3B5B75B13C0868A3BDC77C813DEEDE143D169B283CAB6F783C1FA389BD66EAC2BCD68C6DBBB646A23CD03D3BBD2BDE103C30DDD3BC1673783D607E92BDE0B80E3C6340673DC38D84BD80871CBB46BA1D3D93BC093D4090203CABFA093D40F16DBD50258E3D569CF33AF3A35C3DFB04973CCBE317BCB334123D9303A23D3659A83D74A88FBD009DA53BAE3475BD98E0463D930A753DF6AE6FBD16D29DBB03326C3DDEB9613DAF5180BD782E653DCBB771BCB32591BD90FC873CA8031F3D6BB44C3D931468BDC83877BDC05665BD1370413DD22895BD003638BAE69BC8BC1807153D9610863C705D2CBD6B7A6E3C1C0F9D3D20CB603C4E2529BD56D8363B278B9CBD86FF5ABDA09B7DBCD3B354BDEA85903D3B83843C4830843D06739BBC4BE23DBC1033AC3CDBFBCABCDBB3E8BC7A6BA7BD3A92803D53759A3D1BFBA8BDB6DDE1BC181781BD508E0ABD2CEE813D1B96363DC0E0D3BBB8C8113D40DFCB3C7B683A3DD62589BD6604D33C22A3A1BDB07B60BD0666FEBC0B0605BC170FA1BDD6EA073B00FC593CB07607BDD66CDD3CEC21953D0B3869BC6EC935BD6F2E97BD183E79BD86C93CBDC6567CBD003206BD0E093C3D1B9FD53C73D3993D2472A93D3BD5F5BC33AC05BDCBD63A3C1AE687BD5EA8393DD6BA75BC76E78EBDA7D980BDB6336BBDE6A1BB3CFAD3823D0C36873DC6F9BBBCF84346BDE37E17BDE32B69BD9B01B0BCE3229ABD1B71363D73A1A0BDF65354BDA311653D0B527FBD9633A33CB0AA7F3D7E3AA83D0EB62C3D5B34B7BCCB0C433D2B3D34BB5B7ED2BCAB4A8E39DB20993CEBDE643D8E470F3DC0FB223D20404C3C567089BB26530F3D5632A43C2C4FA3BD96BD5C3C589517BD230235BD0301043DFB988B3CCB35673C43EC21BDA6B81D3DB628A03DEB07273C084C0C3D0CBB95BDC8EB4A3D7626ED3CBEC7193D18570E3DE08EB3BC96E8A3BB9214A53D10C4793DEEA974BD3669873D54DAA93D8B8E333CAE2685BD1B54843C36DF89BC086A753D4CF9A3BD60B2AE3C561C80BA40F7D63BEBCC6A3DAB50C53A846689BDCE1C47BDD3AB08BD009D113C73B8033D4BD97EBC80B706BD7BC7153DC8F0A5BD70846E3D56B71EBC7E826D3D47F5803DB6DA113C36F2D73C730F41BD568F743DDEC7473D0B7056BC400B053D16F498BB1657853D16820C3D18D9783DE6219BBDFC48A63D5059FE3C3BF3253D3B1E983CEE2E603D56ABA03D6BA0E8BB14098CBD8AB79C3DF6F78FBCF09D24BDB31E523DA67D3E3D36CB363C0069ABBB409882BC647C9C3D1EF84F3DB8464B3D2BA9593DD6A332BD9B898E3C58A493BDC04E463D872AA9BDA390AABD70B3A8BD3B7D523D16170E3C56B54639AB29593C932D01BD064DCFBC60EB65BD00B8A6BCEE0852BDD6B00F3B0818863DBC168DBDA3DB273D10E27DBD2E6C0DBDDB7D853CD6ED6A3CABF58B3D00C002B8CB0002BD262A0DBD801D203B0BF17FBD08D085BD430B12BDD64A0C3B368466BD2BD842BDDBB5733D5FB79D3DD6D5D5BCDE6B92BD40AE02BD4EC3093D568EDD3C60A0D3BC384F96BD0B45CDBC06A498BCA88F443DC84129BD36DB4C3DA0653D3CD6D364BC401898BD5E7EA83D407673BC36C4563D9B8F30BD5033A6BDEB0988BDA6ED2EBD5B68D9BCABCD40BCA4568E3D17669DBD7B5D2A3D949A8F3D009A0C3AAEDE54BD2BAD2E3B80F4A13CD006173D7682CFBC8B45EABCF60721BD3B12A5BD30C2EF3CCB0681BD20FA23BD00CE60BA5091833DF2BE973DB34578BD5A04943D46E1983DE6DE893DD6BCED3BFB11893D9ED7253D50ED74BDB6E833BD566BCD3A5EE571BD30CAE0BC3C99893DF6EA1E3D4CA1943DAB78273AD00B2EBD28E9613D964FC93B60ED653C4B9F10BDB6350C3D28177CBD2030883D774E953D3B52F63C10E7843DB02D4F3D735C02BD600694BD16AA333CA850563DF6AC0BBC00C3E53B73FE7C3D18EF0C3D662D7F3D607B483CF60B193CCB4AA3BCEB6566BC2E6835BD2035643D08A89B3D0B59FD3C562D1B3B0B5AE1BC3081A8BD0BD07CBC8E5072BD56FE7BBDE02D87BC7B4B86BC20B6893CB36777BD5B4D753D3C629BBD36A721BD7B9601BDAB5AA83BC3190D3D8BE7B3BC0B16553C769CA1BCF63F06BD80FA3EBC0B73893CFAC6A5BD30956DBD6355853D86581A3DD60512BB80782C3BC0763C3CBBAA9E3C960A69BD2016BABC3EA29CBDFB2C86BD867280BC404634BC7C7C853D202C6B3C0B625DBCAB4D17BBCEA13E3DF0CBCEBC963D7FBC9BF288BCF89E89BD96D23EBC7AC59DBD167937BD6E4359BD9E447E3D27379DBD5A71A43DD0F6FF3CB8AB66BD43658D3DA06E96BC588D90BD569B3DBCBEB0283DF3EFA5BD96A1CCBBFEE10A3DB80605BD00B4F83BBEC605BDF3FF64BDF0A7853DEB5C72BD000E80BA6B5EE33CE3C03EBD58CF243D4EBB8DBDD0FEA23D0E04183DAB4B41BC9EF78DBDD66B283BF025F23CA06139BDEBF12BBC1715AABDB09DAABD0B4814BCFACD8E3D2B8580BB3006D63CB36F08BDABE8DEBC4B1316BC0B8E2CBDE0DD503DEEDA543D26AD84BD1063D13CAB010DBD1E4844BD8B9126BCCBBCD3BC165A42BDAB37493CF6D2423D20AE52BC6B03BFBB2B7CCD3B9EB212BDAEB4343D72789D3D8092F9BB16A0B93B2783893D3CC98B3DFBEA7DBD86121EBD7369A7BD5010513DB734853DE076F8BC3BFBDA3C7B5DA53C9BD592BD4E4E083D607C273D5637F03AD6030C3C5BA29E3C38E6753DCACB963D363C443CE07E113D669AB2BC23814B3D964306BDBEAD8CBD1825203D2031FD3CA042963C033A113D5678223C8B56E83C68160B3D8B2138BD404F92BB0BC24D3CF6494FBC6A7E8FBDB683013C3E9A503D688B36BDE08FA73DDBAF9B3CDE2B113DE6CD03BD889B8BBDBB0FFEBC80DA263B60891BBD72FD973DFE765ABD88E565BD5025F2BC2B1D993D8E131CBD9FE39D3DBB08243DEB734FBC508A303DD045223D66BC2DBD368B8CBCDB4FA53D83B1433DD6B626BD",
      torch_tensor_16_torch.float32_3: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_16_torch.float32_2: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_16_torch.float32_1: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_16_torch.float32: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_16_8_3_3_torch.float32: "0x0400000077C2BEBD1F2EC13DAEA189BDB44E9A3DE0EDE5BDD505A7BC93B8A33A140BA73C8A131C3C881B183D03FE56BC8C70EC3C5FD8EE3D022C9CBDC2D6D2BBC24338BD90C6D33DEF9CCE3D219D52BB6D5327BDAC2095BDB6B3AC3D88F704BC7750E33D4FA3893D4343D33D89E5BE3D69D89CBDEE4A0D3DD52948BD9734723DB99A2DBCCE27273C14EDA6BD76B5D7BD55C7353D745AE03C96B8273C07EEA33D1F9249BD105B2B3D6CEE84BDD309C83C6268DCBCBD07A93D7810D33D49A0D13DB7B7AD3BEB538E3DB226F1BD72948DBDC18BAC3C704B2C3A097CBDBD1CA855BD9E7461BD2521EFBD1A26383C7788A43DECEA433DF75A65BDB6A1DDBD15B9C2BDBE430F3BBE08A63DD67C43BD985583BD2CC180BD372727BC3435E5BD6CFCD4BD7697ED3D513766BD3121AEBC102701BD1509D4BD2733AABCA3C4133DEB0244BD4196A4BB19C813BA3046F0BD4E66AF3D9CF6C23D5A8FA43D1C861EBD34407C3D8022E2BD0DD6EEBCC75AC4BCC6782ABDE0BD4A3D50F45BBDADCB5FBCF3620BBDFFA7E2BDCB6E9FBCCE8BCCBDCDBC8C3D5CFF803D711AE23D1F1922BDD160C43BB81EBD3CDCEDF03DA73BDD3D65D379BD855FCDBDBD88D9BD2A7568BD77EECA3DE91E223D49E0E83D81E6B23DDCF1DF3AA49695BDF5AFEB3D819CC13D4EFD503D7DD883BD4223BE3D7EBD2F3C47989F3D7578493DE929803D6DC9D3BD3FD485BDA4C2903D9322C9BC40FAD1BDE77DDB3D470627BB55B3C23D7DA6BCBD6932263D29D335BD9F224BBD615CC9BC1AAD32BD5341843D9C6EB7BCB400B73DDD4BDC3CB72C95BCAC688BBD8B01DDBDD6D10CBD9481DFBDF7DDB2BC6378FC3A9DDDF8BB8E1E6DBDC284A73DB8ED873D88DCEDBC8CB93EBD77BD973D01FDD13D6AFFDCBD6897D0BC6F3033BCFEC52EBDEC0CCE3D219B8EBCCFA2CC3D4BBA183ABA7151BC01C98CBDC58120BDCE8B1B3D3E86553DCB6689BB31FAE53D750DA7BDA614393DE362D93D54DFA7BC009EBF3D4AA2FE3A94BDB4BDE06984BDDBAC333D53E550BDBA32E83C1A8FED3D4EF8233DC1B534BCCC50F13CBB0E8BBD81CDCABDF76DB5BD6986CABD5B20C63C020DBC3CCA234DBDE815ECBDD2BE823D0CF388BD6B2DA1BC1060CABD2B2A88BDE65E493D7BE1E0BDEEA189BD48F4B43DBA8F77BDD5E248BDDC8807BDA2574E3D02539EBD8799413CB724453D142B0CBCA691AE3CC61EB8BD953C5A3DF167343D8A3172BC9C92C7BD5313413D317F9D3DCCDCA8BCF685633D85EC323D561241BDB70A06BC1642F03D11DA113A3526C0BDB7D00CBC1726703D16921DBDA6CA7CBD8FD3C63D155D7F3D5405A4BCDF4AC53BE1364CBC2024E03C9B3E893B0A0E92BDDADEB23C8C014A3BEAACF93B45F537BDDD5DF73C922CC3BDB04B103D79CA823DAB7F54BCE07CBBBD0A9CE0B9E16B2F396D95D0BD4FB6AABD0D3EDF3D2C7EB43D0FC3853D2134A73D20D4393D8DD5873D7DDB9F3D8988E1BCDE7475BCAA19AC3D9E0332B8930C9DBD4B26BBBD78FC863D25ECC73D4571BB3DC0AAA03C029BA63D8F99DDBDEAE3ADBD3B3EE8BDB075C23DF6C58BBA54465EBDC656233D83B234BD55CB9ABD012F3A3D2FC5B03C7BD7ACBD5DF99EBDFA54623D1D86B73DCC2F1D3C4E7672BD9F17693D9C60A83C0F4ED3BD5C699CBDCA4FD33CCB58953D74141BBD1269693D0E7A95BDF3F6E63DA0FAAB3D4FD5B43CFBC1563DC80F283DE36C8EBD4CB286BACCB8003DA8E9D9BC4173E73D5C273ABDED8CD7BD85CF65BD7200E0BD3CE4C63D5BB258BD56D0A9BD96B950BC3BA1A2BDC0287CBD3918763D1C36B5BD6EA5633D2402B03DCA978AB93558563D0B3387BD4437BC3D5D77EA3D526CE53CDAF1DB3DAAB5EFBDED0254BC54D3BF3C43C9D1BDF1E76A3D8DF837BD3C972EBD6F7FBFBD0358453D929EAFBDFEDECCBC4870563DB5D3B53D3F4FDA3C131334BD39F751BD8078873DF71FB33C552DCB3DF0C8353D426FC23D417DC2BD0D09C23D73C95DBD5B3701BD80E9383AD10CB5BC0AF8BE3C0813D73D603590BD5B27153D3AFBC1BDA496973C9BD5C63D92BEA23DE0B0CE3D4FA7823D2BC01FBC7A12FC3CC1B449BD02DFCC3D07B3713DD3A7B0BD56B1D03D6F38E5BABEA9ABBBE31C04BD98B8FEBC2748C13B73A86BBD9083E0BDABA678BD851EC0BCD142B63D9F8EB13D629C90BDD94794BB06520BBD991E81BDFEC4A9BCD27D27BD66E8863DFA656FBDFE88943CD23388BDA7A816BDEF00BE3DDDFB6CBD8635E8BB7E82E63DFA37253DFAB375BDAAE990BDDD4629BDB02917BD502B523DF9A3D6BC6C8FCB3DE76D84BDA2F216BD8ABF2F3D39C3C03DE8E1E63D97869A3CDDC6A23B5F4658BD585F883D52E78BBDC9C2FDBC27BAC9BD6807E8BD7BE8863D902D033CC767C03D900EC03DD54E7D3D5B2E413D278CFABC4C30803DA61F683D411B273D02F45EBBFC34903C6912093A1529AFBD771DE03C1C6FB1BD2E376A3DD8CD8FBD1EAE1DBD3FEE64BDE881BE3D37F8A9BD877B763D0A19723DABA8AA3DE0E4F13C9D93833D5DCBBE3D012BBE3CFB21243D16BABCBDBC7A01BD6F132F3C00F1693C808B2ABDB644EFBD5B12FBBCE8CD383DC5D3CF3D4FF4D9BD6277663DF504E5BDEACFE6BD5B2697BD3B097FBCFCD1063D6A8EB7BDE5F3B93D1443DA3D5399ED3B6276C43DB3885ABDF6F53EBD652B79BC3BFA523C6A5EA8BDEA43C1BD97B03E3D3A2E0B3D361DEC3D7BCF44BDA0772A3D9ECB42BD2A4B6E3D02ECD5BBE3EBB23D7117863D0AE5C83D1511783DD815913B23FFCF3D1CC58DBD86A5E33D5EDAEB3D0690E63DDE7C61BDB1C57FBD7C53F43B4151163D0125723DA952443DC683CD3D6EE1F1BCF85D1EBDA7CE213D8B84063D9CCA8CBD52C33A3C7A40B7BD5A9D0DBD34743DBD4692D33DDF43D9BD24818EBD8633ECBDFF7CF33C7EC5B9BDD22D1C3D95A6A7BD2B9C9ABDE59B76BDD0E1903CBFC7DD3D8415E23D7DE011BC1669ECBD637A1FBD20F837BD1E58CDBCEC70383DB3EB723D6B06563DB4E5093DF76A43BD58DDA3BAC2BC753C5C9176BD92BA2CBC600771BC070AE4BD709FA33D4D3743BC2FA5D0BDFBF4BE3D7BDE81BD4AE72A3DDF5BEF3D21C5B23B3AE10A3D3ECC3F3DC56AB63DE41B14BD3ED187BDA11A17BC52C1BC3D2005263CF5B2A73D1DB165BA911B143D1D48863B69A9513B9AAEE5BD2001D3BD8283203CDDE96E3D3422A23DDE8EA73BE8794B3D03E4493D935AD0BD7B23D4BD0823BBBDB0C9043B879D98BDE4791ABD627190BC94563C3D59D8DF3C2CE7DF3D25B4D93D07FA99BD3BA7C2B94A6D9F3CC6B4D23DC29A15BD95B53DBDF4E398BD20D9B13DFEC108BD46CA34BD7A3FA33D0217DE3D33BDA2BBB122AABDE4A7C43D891725BDD5725EBD65AEA9BDF92768BD2706BDBDE0508BBD37DEDBBD1D96C2BCCA16423DCB38B7BD08942CB90E0232BD6E7D693DDA0BD13D59F67FBCB3F372BDA373B9BDC2CD8DBD355F0B3D5083DD3CA0FA813D27748FBC6C09783D4908D7BD8DC3013D554FEA3D6BDFEEBDA1977ABDBC829A3DDBF196BCA6A780BDA23E933DE86E013CD040973B379E12BD79D9B53D97E1853D2BF3AC3C3256933C3D9C793D7F5E963DFF0246BD9A8C53BC97EC533D39EA69BDCDAEE13DB054A5BDB7BF5E3D0C5FADBD12FC1A3D3794A83D11C4683C068741BCCA7B993D464EADBD33D6A2BDA3B5CDBD829194BD1975483BF5E25ABDB315D73C7950823B75DFC83D824F51BD3B0E04BD2BA29F3D6C1DF4BC7113E73DDFB93FBDE02CA9BA31BDE4BCEC35613D42F6383DD28780BDA40A9F3D4E62F5BB2323F4BCA7CB1BBB0DF9A73D54C2EC3DDCE26A3D3DEFA83CEC849D3D74DB49BD20457CBDF5660BBDA1369CBDC68D4F3DC769373C8D2725BDD70644BCE32319BBDDF2CE3D0274D73D51CFB9BD29EA303D87663A3D6993383D959E83BCB571F13C66F0F23C1FEAEA3D4653E7BD0A2E37BD0B63A2BDF9266ABD528DBD3C7433933DE784B6BD9BFB9C3D979BC93D6AEF6DBD8581A83C13D177BD9BC8CE3C97CC5FBD940B3CBDDD91A1BDF744C9BDA79BC03D72D673BC294456BBF33B70BD603AA83DC5258ABDC13D43BD9068BCBD45F4CABDEC46D63D6060BABD614985BC4BBA0BBD52D0303DB81C013D1206B9BD29C2D83DF66CF0BD8AF93E3C0A5021BC17BBDFBC6D7AA43D96C8CB3DAD857B3CE07E2ABD3670B33D7CA3973D7466AD3C690704BD96CFA23B371FD73D8764513CFC40BEBC1459CCBD145781BD6651AE3D66FC87BB2D9500BC95F33B3DF4CB9EBD876F02BC42C407BD7A917C3D806CC43D1D8D973D58F2B33DFFB3D7BD7F5F2BBD6AA5643CE0FFCCBDC1F2023DDC349EBDCCD94E3D3458C33D6E78CEBDBA3ECA3DAB3C613D32479FBD0706E73DD009D1BDDA7CA2BD492070BD838DC3BB165DAD3CE3A90DBD86C5E4BD37E25EBC7E1FB73DD5D4B93D17A5713DB22B8C3CEEE2EF3CE810BABDC178433D9035F0BD1B5947BDC3B6FDBCDF3CB13DFB2461BBF5E15BBD90ABA83CCB45C8BD409BFFBC9AB0053DD8C1FFBB99C74ABC4083933DD957B7BD9FBC73BDF5A0E93D751CC03C96509CBC970A7A3DA932913D5653A1BC751249BDD6CE9DBC6F472F3D368076BC9E788C3D26D3C4BD3DD66CBD65FFB73D2C4F7D3C5C69C23C87C31E3D4620E4BCF10A41BDF67B0A3DDEDEFFBCED6847BD341A7F3C6685E93C76572EBCE33AA3BDE3F991BCECC888BD0D107E3DAAEC9FBDC271C03DD142403D10AECEBDE21CB33D53B0EEBDD386E0BBBCB196BDA2A2CFBD924F3F3CD70C6ABD8776AE3D1ABCBDBD6555C83D7A9C913D9265D33DFC5A0DBD39F193BDBE59A0BD06B5C83DA31770BD55BE6DBC1DCF94BC6C17A63CE60DC6BD099EC23D4597B2BD1A64ED3D4AE13CBD037F57BD9FB384BC09DD0E3D71E1B2BC5AE3F0BDA0C4A93D3A10EF3D948B733D1D2DEC3DA590033D7C4D17BCCD3DC0BDF6F2D2BDCE2CA6BD16F4F4BC8C8B8C3D6B2947BDB9FC95BB1C01DABA78C59DBD811351BB900BE93D49E8C03DE1D2B73D5C6F3EBCE6F9083BA3F2833D9E9020BDBDA143BD1081CE3DE978DC3BA0F7A2BDD65ECB3D903DA03C1A24813D729FD1BD5C28B33C9EA0933D5C478BBC8B3089BD121AC13DBC85603D1B7B093DA052E43C46782A3B54698A3D4B0DD3BC24138EBD3653383D81C9003D58CB373DD67656BC1E1E80BCBC7619BCA491FE3C8235B9BD06F6E0BD96A1343D1F2584BD2E6E22BCC4D2053D5A69873C56989B3D061B7D3CA904EF3C8FD52CBC07828E3C4600313DA0A8A43DCFB0E4BD271549BDAF94D8BDFE7440BDA920933D2FB0E4BD1C43D8BDA3C08B3D11888EBDB466B03DE568163D2A57F23C1BBDBF3DDD91DFBD01BFB03D5E8B1C3DB0BCA1BDFCE6EA3C898806BD28C241BDC31E51BCB29563BDA40DD33D02BDCF3D22FB4DBC1908D6BD7D3EECBBB125FF3B5B54A13D197F783B447E0C3D0715003D91F288BD3CB695BD35B8D7BD9A9A72BA1683153D554B09BC7547EA3D4A2BB8BC4B7E9DBD3EE8A03C56F007BDE05984BC6ADDE93D2D9B5DBB56D6D23D02EE803CEA9433BD66F4B03D307C89BDDF8B7F3B4901D93C13A9583D3AB1DEBDCD70BD3B75F8F9BC377D9C3D5968223DD778413D9A1E913D9424D8BC906BF7BB98A1C13D6788C2BD09D5A6BDCB400D3CCF373FBD832ADD3BFE34D53D75D55FBC87CACDBDD16E5BBDFCA7DD3D9C18D4BC49A953BDC748593DE7086F3C28CDD4BD2B00C93D51EA873D27C9D13DB73C533D16C022BD00951DBD99EF693D5127BBBCF746BD3CC7DFE9BD4F9E6EBDF44D333D3861BEBB2F1168BD9B87D2BDEF65993D0C1CC2BCAF24EDBD09DCE83D4FE76A3DC75D90BDC526B0BD783AE93DE3FD003AA62891BDAAE38A3D7819C9BC4845043CD3767BBD0E6ECCBDC54AA0BDFC0354BC3BBBAEBDBBE2ED3D4A2FA73AC6CC38BDADC73E3D41FBD5BD15E876BD3A4F353DE612CDBD9496703DC54C223C3A3FC9BD5688EFBD3C90183D652A643D33FFC0BC516CD5BD411B8BBD44384D3C847E8C3B2321F73C69B5AA3C246BCABB44BE7E3D231FEA3DD701C93D3551DB3D44EB22BD45C224BD9C8E55BCF0AB0E3DE264433D4C1C2CBC73E69BBDFF1AB6BD655CE83D17C801BD337F82BC5EEB93BDF44F6FBD530CD43C7B504B3D72D43EBDDAAC31BDE131BF3DA29B78BD0A13B4BD899F96BCF3A9E53D7911D23CC065853CEE6A70BC96D2963D7D426FBDE5A4A33D2214E43C3AAE563C7AE8843C2DDA94BD5142B33D05877D3D6CC5BCBD9CB9E0BD0E88F8BCF358A03D4FA86DBD57B3DF3DF4B272BD3105DABD7B57543D2BDD91BD953098BCCD8F16BDF46C19BC5750D2BDF95FDDBD66824F3D3ACC5ABC5D9891BDDEC044BBDB4BDCBD4522003D8C3E653DF612EA3DF7A0C4BDD9216ABC00FC823D3732DD3D63B8ABBD15234D3D0A4C473D2482913D9A65A6BDE33CAC3D294152BD7C9194BDBEB1BF3C0B77CC3D4DD59FBD13DD803D70225DBC081A1A3DF146BC3D5A11033DA75DC8BDB85511BDF99DBF3CB59BCBBDEA80A03C349A81BD",
      torch_tensor_8_torch.float32_11: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_torch.float32_10: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32_9: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32_8: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_8_3_3_torch.float32_1: "0x040000008B03E53DDA58003DB7B530BD3EA946BD436C9ABD8F50A7BDBF7B9BBCA2C0AABC44BE563DE0544EBD9169C03D5E5BA9BDE89CAF3968F6D83D0101F03D6BCF8BBDE1F8AB3C7514643CC15262BDD4C626BD04BF023D2ED5A7BDF74A9F3C55E2503D8F393EBD9A7BC83DA924FEBBF1035B3DFC04EF3D3B8D13BD1128833D4F120ABD31068DBC169DA3BC7EEE3FBA0F5B36BD2249E23C1883913BBEFE983DD468C3BCD5A0413C079133BD8920CABD1B57433D0E12773C205241BD9D3523BD747BFC3C3591AEBCEDB89D3DCABDDA3B2457363D8B51523DB7E2ECBCF0DA503D5F1BB23D12B6B13BD7EDBC3C9D518C3BF41BA73D27CD4BBD9A4C80BDA158523DE90ED2BD32A7F73A70FF5DBD1C4E9F3DFBB6E0BD0958923D4FCAEE3DB758C33CCBA500BCF194ED3D6F4A4EBD4CBA1ABC7C6253BD234585BCB1D3D13CEDF1803CC658B6BC1652F1BDB7BCC53BF3C864BBB53C913C05F1B83D749AEA3DB3318FBD0ACCF0BB976941BD9472DEBD8DA0AFBDC087E23D24BA8C3D75A5813D3A22863D37C1BFBD5CC74A3CEFA2E03DFAB286BD32B6D63DFDC0FD3C80CEA93D60CA4EBDAA8A5E3D3FF6D5BD1C34F5BBE002213DB8C3103DA4F8C93D5A2CED3D0294DB3DF00BA23DC0B0A93DDA2379BC554EBBBDB73233BDBDC458BC5E6D82BD62C0763D7F72293D68C69B3C2536E93CC105D43D34D22F3D46A8D3BDAC32AFBD05C2543DA691833CEB6A6B3DD70CF1BD30BEDEBDFE01943D63629A3D395CDABD943B373DC076BCBD7BC8B63DED78173D1AA7EE3D68FAEDBDC559E8BDF32EA33DC148D63D3BE0933D7676A03D344ACBBDF3B2AE3DE6E0E3BD1CAED73C3F199EBDC6BB3FBDDEF2AA3C90CB3DBD11C198BC1CC4E4BD3092E3BDBAFC3A3D00534CBD23D792BDD9783EBDDF53C5BD4AF1C0BD316C903D7656753D7A99803C41D883BDD099203D617DAD3B287EACBD89C0CF3CA1C4DB3D0167EDBD7001F0BD9C64773CB1BFB53D53DD92BD4587D43C02ACA93D76D4143D4BEED03C6DCFF03D273D9D3D34BF87BDDEE5263C7F9B763D5DDBD43DD922F0BD7FB2823D02260CBD0E58ECBD434DD63C326683BD6AD0883CA0B39CBD37A1B5BD28D623BC4F2822BD95298D3DEA79263C1A65BC3DF8ECB43C39391BBD0B7BA33D7D06D33B5434B53CCB401BBD88BEDD39A4A0B9BC5C2824BC223BBCBD93FE3DBAB856C8BDF4B1CFBCF7E08B3D42D4A7BD44B0A2BDA6BCEBBC5A5404BDAF6FA33C0D47A03CE5C8743D8244A6BD954308BC73FD863DCEC4D03D34D90CBCBFA78BBD70C30A3DD472893D01CA96BD220F8CBD515C553DDB4907BC9FF6E3BD002A8BBD12C2433DEEB923BDD497A63DD3CDBE3D24718C3CEBAE18BC563A19BDBD45C3BBC8BAAF3CC75CB8BD32BCE6BC43C3C8BDA522943DCCB499BDFC7DDC3DF8DEF8BCC7448ABD6AEC673D27ED8F3C6D21A73D2F85493DC182E8BD46A8983D18CEB5BCF55855BDAB46993DD007B03D5023D4BD93982EBCA834C63D4DF33A3D7056CB3D4A6D25BDD82485BD0A8CCF3D4135493D56B3E73D38A149BDFCF79ABDBD5262BC4742E3BDAC363D3D1006B23D79C2E73C93C83EBCB3556F3DF93399BD9F1BEC3D70FEEFBD7535E7BD5E22E4BC2227C53D8654413CC862393DFAEAB0BD5C0A303D2DC357BC207C413D4575AA3DFCD3513D843F24BC55E1EDBB2B6097BDA6992EBD27D89C3D809141BDC3E4953DC7693FBD5AD9E0BC745F243BA77CDDBDD83C9ABAB09F42BC6D762DBCACFEC0BC3448BE3DB41EB23D3995A3BD4C3C603D6151BDBD6379CDBDE98E133D2A04E33AEE3061BDB2CAE8BDAEE03ABD483A213D0167DFBDD878EABD89F9743C49E0ADBD3173D3BD14FC39BDA46F9BBC0553DBBD8429A1BDD534FD3B4698E3BD45B287BCA3D89BBDB351A7BD26B93D3D89C5B9BD02E9B6BD84A4893D0C81B43C10CFDB3D450701BD012969BD0AB232BCC24D1C3A3712B83DB869F0BDC47A09BC0E88553D91E984BDF14975BD3C48693D4944E7BD07C4E43C62DBBABDD9F06F3D2E5FCEBD8463943D797AE4BDE2E0CABDF8A3E33A2D30BE3DEAB2CEBD375257BD44FBD33DB6E6A1BC94FB473DE22FE8BD40CE17BDCD2375BD037BCB3DEA58483D271DB0BD88A79B3CFF89B1BA995546BDA5D589BD3E2F20BDE33EBE3DD304ADBD39EEABBD85ED14BD445C063BD366033D63C4673BC267E8BC205992BD163BADBCE05142BD4000C33DF7F0EABDFDF399BD0E5EC4BDA870B0BCB115BC3D8C8FD33DD01DD2BD3B51A7BB6DAB8D3DEDC7543DBCB2C53D613C56BBDE2AA2BD9AAA9F3DF78725BDDFF1793D34EBEDBC60334D3DAC15D93DD96DE03D0AA7DBBD80A79FBD859647BD3BEA99BD8795E73D4D882ABC711AA0BDF5CD56BD775185BDA4F1443D9986D2BD430BE1BD25ECEDBD64D24F3DA9AE6E3D32E795BD5568EF3CE82AB23D7B478C3CC244CCBC4CA80E3C040B4FBC580C733DB5E2A3BDA1C9743D2209883DBE3B92BDC715C53D2B0FED3D274D3EBDE83407BDB790703DEE15BDBD10E53E3DAC3DE13CC522983D6BA5D1BD7A84C8BD85CD583D5CE12D3D1FA6E0BDA19886BDA2D6DCBD4BEAACBD63CD59BDE5BBC73DC72BC0BCF99F8A3DD236E53D81FD5B3D3311D8BD2FEA723D1B20383DB311BB3DBB15EEBD9170943DFB8FC53D508DE0BD24054A3CB20ACE3DDE8AAFBDA0631E3D614D553D0508FD3C3FFAEF3DB39EC53D4013CF3D56AD70BC516ECA3DF5ECE0BD953E82BD187DCEBC0D650FBD30F1DE3D72AE633DE0639B3DBC2CA43DCE4BB4BDB9A25FBC3BFA8C3C501AFB3CBE3A783DAD1340BD608E11BD85F4C93DD48D01BD74A8A7BDADA6A33D0A70A33D4E5D17BD9702C1BC1418B2BDB78EC9BDA586353DB1364EBD1825C03D6A42C1BD917285BC92C3263B7617783DDF56C33D1173A33D9B7D543D8E905DBDB65DACBD47ECD7BD818FBF3BE516EA3D9D60B7BCE492A2BBEB64AFBDFD32143D8604993DB5F5EDBD41F2A9BDCDC6B23DC594E43CCAC3F0BB6A94AC3C6CC992BC9AB3A8BD7E88E1BD6ABE9E3DCDA665BC804633BD9D31F9BC90A483BD1DF90EBDA72FCFBD9B9EB43D471D453DF67173BD14C224BDC490583DD0C032BD5A94FE3C91E9043D16EF97BDE2D7F13C1847EC3B96CCD23D38A82EBDEE2EF8BC86F4CF3D2C18C5BDAA800B3CD18CE83D756F58BDFE62E73DF22AD63DC48BE03DF83F38BC6C57DA3D665452BDA93C25BD6C94363D1DF2CB3C2E0E853D445EE53D921697BD8118803D1B80213DB0AA7E3D43E4643D049234BD",
      torch_tensor_8_torch.float32_7: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_torch.float32_6: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32_5: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32_4: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_8_3_3_torch.float32: "0x04000000D6CABCBDFF017DBD4FE5C23DCBDFC3BD0DA60ABC04C3EE3D2E602E3DF0AC5A3B092AD1BDC1206F3D5BEAABBDC60609BDB9F521BD0EF88EBCAAF6A83A2713C73D440C713C022FD83D73A4933D329798BD4880583DA69DAABD8F964CBD78FA0D3DC6631F3D0A13B53D08651BBDEED34539C483783DA06AE9BD7A7FAE3DD495C7BDE8E5D43AF023A4BC113C7EBD9A347F3C9995C73DA41B0DBD224B8FBD288732BD0239EFBD66E5593D01D567BD9411A1BD1E0C8BBD59C58A3D87A27F3D973FB93DD3172F3D5C3521BD0CE506BD039C0E3DD467C63D503F033D596564BD39EA62BD9432E4BDA394D03C4F7287BDA130D7BD63A4D33DC7BD9CBDBAA85BBCB04B0A3DB90E763BF967A2BD8718C3BD1362C03DDE359D3CC93CC83DA6D321BDF12F0E3DB8C5DCBC7BBCABBB95FF92BD7941233D7A9E183D19531FBBF520D9BCEDC794BD1FE9A63D6DACB3BDC4C0453DD25022BD67E568BD976FAD3C59C07ABDF670DE3CDE97BD3CE434B3BD67BEA03C929A4D3D28133F3D460E73BCFCDCC5BD72D394BCD9A6273D012230BD103B373D74BCA03D560D7CBDE255983A7F9A473D7156173CE949213C6819713C71BEBDBD71BE173C4822A73DF57DD93DEADB8D3D165F813CAF6F613D25D56ABDF102C8BDBF8CCFBD3EC8F03D5236993DE8D5A6BD25DC3C3D3F44B63D2344F13D0E0BD33D70FEBA3DD255DDBCEB6729BDEA2AC63DB340873DAE3E91BD6AFCD83DBE3A693DCC92833D374797BDE47D0A3D0F3929BD6896BC3DA0B8ADBCA1ED3B3D8C7BAB3C9A614D3D7C0A24BD0E5C6B3D1495A8BD740CDA3C374DA3BD1E1CEEBD28D3C1BDBA8BBE3D7A95823D6972E23DA05BC13D6E8BD7BD02B6A4BD6BFF9BBC14BF9CBD5399A73D2978B6BDD8846BBDCA2CE9BDD30789BD2F83C63D7E9DC53D22C6AC3D265CBA3DFF9CD63D6936F7BCA465543DC008D73D37B11F3DF047F13D395E7A3D5D0A963D96F228BD1A9F673DB5DE5D3C1E90E6BC780E88BD3C6E87BDA1B8B9BD1D08A23DF896AB3D01C25BBCD0AB8BBD3B8CBA3DB3589A3D91870F3C88E863BD11D2DD3D3367453D063AB7BD2C00E73D2348B73D46F22FBD5EAE873D3A2389BD374C97BC35F0CC3D61909F3B8DB1AABD205721BD120803BDAF42BABC26C9383C4F37DF3D5CC2CE3B570695BD54EEC53B0B75673D9A726F3D5F96DCBDEFC1ACBC5D5DB3BD0AF84DBD91EB2D3D7B65ABBD7870333D3FDCCC3D1A49FD3BE6DCA0BD60F32CBD12D1D23C0EFEB7BDC4D16F3D631FDBBD5404E8BDE784EABD06DAC3BC3D4CA23DFB70E4BD569DC83D2C1941BD68610D3D5C1BB03B5CA3D9BD872AC83D4FF5813DF0E8EF3D09E0733D4D509FBD356FC93D1F8CCF3BB6E9643D5D87C1BDB2D70ABD30FCECBDE0033CBD5446D03C8581BDBD90DF193D2F90813D887E863C477DA1BD6721BBBD36ED14BDA3E4533D6613EE3DDBC98A3D276F59BCBC3F293DD9C9ECBD2825CEBD7B3D613DA0B588BDD13B683D1762AABD79186FBD0ACEC6BDEAE67B3D19BF44BC10C0B93DD55E953DE58D853D825B783BF03E15BD9DEAD1BC9D4E803CBC496F3D0018A9BD3F91CA3DA8F151BCED3ECABDD89682BD0F8FD53DBFBADC3DE890DFBDED3AAA3D2FEB713D6BDD8E3D4B51CC3DA01482BD436E183D598B453DD9A30EBD0D8B213D6FE20ABD1739953DB2EE05BD8DF433BD360CF33C93372B3DAAD76BBD9BAF2A3C51E08B3D931D40BC54E8123DC8D9E8BC4C31293DD2D6AEBD15ED8DBDF10575BDC8CFDD3D4DE401BD32B4A8B9F4DF69BD48F2F03D6EBAEB3DA207B6BD9EA9C3BDD2F2B6BD48FE14BAF217F6BC06FB9DBD39232DBD9866B63C3F377CBD82ECD53CD163DDBC56E869BD10A3843CA375C63D8B2DA3BD5F51B33BCB0232BDE4D8EC3D1FFEE4BDB261E7BDE6D4ED3D9BB498BDC218B93C67A526BC3E60CBBCCBA0D7BC905E993D6994B83BA2FDEABD227D8EBD0D8F24BD67E9723D0E319CBD0E95E33DF007D7BC0E5BADBC6E1EBD3D2F9E723D9AB3CC3DE29C8B3D396F12BD9722A0BDAFA90FBC04C2C73D820222BD46D4DFBD43E1453DC9F4EA3DFA6B09BDDDD9C7BD58EDDABD13F0F13C843412BC3CC473BD3E25C33C0751373D1DF5BF3D0D63BB3D978290BC92D2D4BD0119DABDC05AE13D5C63553DA16B523D38D4D0BD9980DF3D60A6E43DDFE9D93D609BCBBD112436BD81FFA5BD0C8FE43D146A4FBD1F635CBDFEE67C3D414D5FBDD9BF6DBD75E528BC379839BC7803BCBDA136C93DFFEF54BD333A2B3D22EED13D5871733DB6AF883CB25CCD3DADC7813C31555FBD5B53E43DFF7FE43C4D7DEBBD026D09BDEE67A4BDC19CD33D17709FBC3D01DCBD25C3F2BB9E93973D21D2FA3C3DA3183D8D53333C65F7333D033BEBBC810640BDB599E1BD21D3B5BD1836513D76E98EBDFD818A3C5C141A3D9BB6083C317C9CBD8ED1E63DA6598CBD9D84C63DD000C0BDFA3BE8BCB54A833DB63A45BD85C0CA3DC417A6BDBFAFCABDBAAA59BD2E109C3C9A3BDE3D3B7366BD38A22C3DAD0AF2BCE65DD1BCE178B13DC70CBBBD9E154D3CF1F9E23DA9A984BC8266BB3D08A814BDF348C23D5879E9BD6A248BBC5293A9BC16711C3D34623D3DD251B93D25D68FBC4C2399BB1249A53D4F9C02BD6295D33D28B3A0BD81F050BC016BCFBBC764573DEF02A53D7B0699BC1BF6C7BDE12E6F3D7765103D57E8413DFAE294BD71569B3DC09AE43D648B273CEC70E1BD816EA93DBEF4B2BD4AEDDD3C8B4B8C3C05EE61BD9114283D25E1D7BD27E3DB3C850299BDDACA50BCB05D783CE39FCD3D8D5066BD949F9A3D434975BC9D4165BDE92CD2BD9173DDBDC1B6EB3D88C7F0BCBEE3C03BF1DE023D400FA43D67FECD3D13BFC33DA3D1B2BDDDAD9ABC3FD28EBDA5E689BD2302E53C1F8DE23D8F5AC1BD5512923DF9457ABDCC0ABCBC7795BF3D625ADABC2CD12F3CC7B7A8BD6A74CD3D889A79BC1B87B0BD4A580D3D4B9CABBD2E85BFBD1C41EB3B2B5CBF3DFF9908BD1233633DAF67CF3D8615A03D16377DBD7AA953BC75E717BD1815C2BD6B3C4C38699BB53D4C59CB3DDC26343CD945DB3CABFA50BD2730B63DF8DC48BD29A9A7BDC2AB943CC9AA903D7A9BD9BD492EDA3D14A62D3D6B19A9BD56F6CFBCF965D13DD82DB9BD69160DBD73521E3D7C73D3BD0950843D20477B3D38B1953DB8E099BDD864F03D82118FBD65F5F03D4AA1E7BD320BD7BDEC3D943D1BCD493C0DC8DE3B96A785BD0A7D4ABD09240DBD0D1FEBBD9CB0C83BFCBEAA3CA43ED1B865E21B3D",
      torch_tensor_8_torch.float32_3: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_torch.float32_2: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32_1: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_3_3_3_torch.float32: "0x040000008BDABCBAC56ED33D543222BEDB0711BECCCD97BDC461533D56E479BBFC401C3ED7E88BBC6E96503D293A6EBD9CF21ABDFC443CBEE48302BE0379A2BDB69AE93B09D19B3DDD7DEC3DE29905BEE2A1ABBD58288F3DC5A4233E2D3A22BD0E78133E221DFEBC43D2A63CF270323EA2D036BEEC1FF8BD619047BD88A299BD87442A3EDB78FFBD416FB5BD28AE09BE299138BEFD12E6BD6966293E1CDFAF3D1C07BF3D9AD3253C6511CABD395D053D8F0038BE34650EBE9A30CBBD2EADF83D6317E73D54CCAEBDFC8AE3BB3613FC3DA8E9433E206D9C3D15FBD43CCB21043EBA11E8BDF4E3123DE2C918BEF29508BEE89ACBBD3456B23DB1819E3DF077E9BDC6246E3DE15ED83DF6FCC6BCD7C7F03BADA5363D8C83F43D72393D3EAEDD17BE887090BD6AE69A3D0448233EA57D2B3E94E22D3ED9E01C3D215E2BBEE807913C2093F6BDC0A837BE1F182F3EE0D7153EEC9444BE0C8B133DFCCA04BD34B801BD566BB4BD7091973DFF72E9BDCD7C903D9451C73D76130D3E5D5F933DC90B43BE0CADFFBD86CCC43DB5FC243DF5BA19BEC5F3E2BD7664393EDEC9043E9FDAABBDA06546BD3ABA3BBE7BB262BB8C6714BEAA0218BE15BC2DBC1BB6EC3C4F69A1BD5EDFE93D27D9EFBD7ED0323E210D073E512F26BE7F3044BDB8460E3C4105E63C6CF53A3DBAAB9A3D11DF3C3CA84FC0BD6D80BA3DC2093DBEAC9BE9BD335445BD62FDBFBDEFE189BD9E8521BE9CAD27BDBD7F283D366200BEB1D021BC6A120D3EE211A2BC6E43AF3BE10188BC44881F3DBD9BFA3D3AAC3A3EAE4CFA3D91193B3E9E0964BCFE0731BE0CDABABD6C2F063EF984A3BA9EE7C3BD260417BE656D38BEE85326BE29E41FBDC425D83D4B16D53D3D0F3EBE28DBF53D51351ABE4AA626BDE5CF9FBD7BD517BDACC51ABDFBD630BE21282ABEAAB2F6BC201B233B020CB3BDAD78943D9E5F31BE4FCB54BC644E2D3E01C4A0BD2EF4313E0DBD8E3DD4D831BEB45EF93DE0ECB5BC20F2AFBD38961D3E1C401FBEF52BA93C4D0A25BDB9BA0C3EF60A5C3DA462BD3D7B318B3D728F3DBD56C725BD9C6622BEAE8FD53DE8771C3EE5D6063E14020BBEC6A00C3CACEB0ABE74F7D8BD90AAE5BDD3B1863D35DFEABD729589BB25A5043CFF11FE3DE4F714BE4B4A07BE54DCE4BD63EF093EC2AD8DBDB339263EF0858E3DE4A1C73C2FC6BBBAD9D31BBDDACDC53CA0FF33BD933DB1BA2E28C93C"
    }
  }
#-}
