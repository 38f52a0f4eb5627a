"""``dir()`` of the top-level ``torch`` namespace and of ``torch.Tensor`` against jtensor's: a
public name PyTorch has and jtensor lacks fails the test unless it is a deliberate omission
(``OMITTED``, with its reason) or a known gap (``PENDING``, the to-do list of issue 15). A
pending name that now exists fails too, so the lists only shrink (the same contract as
tests/nn/test_api_coverage.py for torch.nn)."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _names(text):
    return set(text.split())


# Deliberate omissions from the top-level namespace, one reason per group.
_TORCH_OMITTED = {
    # Standard-library modules and build flags that torch/__init__.py imports or defines for
    # itself; they are not part of the tensor API.
    "modules": _names(
        "builtins ctypes functools glob importlib inspect math os platform sys textwrap "
        "threading types warnings torch TYPE_CHECKING USE_GLOBAL_DEPS "
        "USE_RTLD_GLOBAL_WITH_LIBTORCH classproperty get_file_path compiled_with_cxx11_abi "
        "prepare_multiprocessing_environment"
    ),
    # TorchScript / JIT: the IR, its type system, script containers and the TorchScript
    # runtime (futures, fork/wait, the C++ op registry); jtensor runs eagerly only.
    "jit": _names(
        "AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType BufferDict CallStack "
        "Capsule ClassType Code CompilationUnit CompleteArgumentSpec ComplexType "
        "ConcreteModuleType ConcreteModuleTypeBuilder DeepCopyMemoTable DeviceObjType DictType "
        "EnumType ErrorReport ExecutionPlan FileCheck FloatType FunctionSchema Future FutureType "
        "Gradient Graph GraphExecutorState InferredType IntType InterfaceType JITException "
        "ListType LiteScriptModule LockingLogger LoggerBase ModuleDict Node NoneType NoopLogger "
        "NumberType OperatorInfo OptionalType ParameterDict PyObjectType RRefType ScriptClass "
        "ScriptClassFunction ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction "
        "ScriptList ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer "
        "ScriptObject ScriptObjectProperty StaticModule StreamObjType StringType SymBoolType "
        "SymIntType TensorType TracingState TupleType Type UnionType Use Value import_ir_module "
        "import_ir_module_from_buffer merge_type_from_type_comment parse_ir parse_schema "
        "parse_type_comment unify_type_list fork wait futures classes ops library cpp "
        "PRIVATE_OPS IODescriptor ThroughputBenchmark BenchmarkConfig BenchmarkExecutionStats "
        "AggregationType AVG SUM monitor"
    ),
    # Graph capture and export (torch.fx, torch.export, higher-order control-flow ops) and the
    # symbolic shapes they trace with.
    "graphs": _names(
        "fx export cond while_loop SymBool SymFloat SymInt sym_constrain_range "
        "sym_constrain_range_for_size sym_float sym_fresh_size sym_int sym_ite sym_max sym_min "
        "sym_not sym_sqrt sym_sum"
    ),
    # The dispatcher and __torch_function__ internals.
    "dispatcher": _names(
        "DispatchKey DispatchKeySet ExcludeDispatchKeyGuard DisableTorchFunction "
        "DisableTorchFunctionSubclass Tag overrides FatalError"
    ),
    # Quantization: quantized dtypes, schemes, storages and kernels.
    "quantization": _names(
        "QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage qint32 qint8 "
        "quint2x4 quint4x2 quint8 qscheme per_channel_affine per_channel_affine_float_qparams "
        "per_channel_symmetric per_tensor_affine per_tensor_symmetric quantize_per_channel "
        "quantize_per_tensor quantize_per_tensor_dynamic dequantize q_per_channel_axis "
        "q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point int_repr "
        "fake_quantize_per_channel_affine fake_quantize_per_tensor_affine "
        "fused_moving_avg_obs_fake_quant choose_qparams_optimized empty_quantized "
        "quantized_batch_norm quantized_gru quantized_gru_cell quantized_lstm "
        "quantized_lstm_cell quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d "
        "quantized_rnn_relu_cell quantized_rnn_tanh_cell ao quantization"
    ),
    # Sub-byte, bit-packed and float8/float4 dtypes: storage formats for low-precision GPU
    # kernels with almost no eager operators in PyTorch itself.
    "low-precision dtypes": _names(
        "bit bits16 bits1x8 bits2x4 bits4x2 bits8 int1 int2 int3 int4 int5 int6 int7 uint1 "
        "uint2 uint3 uint4 uint5 uint6 uint7 float4_e2m1fn_x2 float8_e4m3fn float8_e4m3fnuz "
        "float8_e5m2 float8_e5m2fnuz float8_e8m0fnu"
    ),
    # Distributed training and the other accelerator backends (XPU, MTIA, MAIA, IPU, XLA,
    # Vulkan, MPS); jtensor has a CPU and a CUDA device only.
    "backends": _names(
        "distributed is_distributed mps mtia xpu is_vulkan_available get_autocast_ipu_dtype "
        "get_autocast_xla_dtype is_autocast_ipu_enabled is_autocast_xla_enabled "
        "set_autocast_ipu_dtype set_autocast_ipu_enabled set_autocast_xla_dtype "
        "set_autocast_xla_enabled profiler_allow_cudagraph_cupti_lazy_reinit_cuda12"
    ),
    # Vendor kernels (cuDNN, MIOpen, oneDNN, FBGEMM) and the ATen kernels behind public
    # functions (native_*, SyncBatchNorm's batch_norm_* statistics, the grid sampler's, the
    # weight norm's): programs call the nn.functional forms, which jtensor has.
    "kernels": _names(
        "cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution "
        "cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose "
        "cudnn_grid_sampler cudnn_is_acceptable miopen_batch_norm miopen_convolution "
        "miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose "
        "miopen_ctc_loss miopen_depthwise_convolution miopen_rnn mkldnn_adaptive_avg_pool2d "
        "mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d mkldnn_max_pool3d "
        "mkldnn_rnn_layer fbgemm_linear_fp16_weight fbgemm_linear_fp16_weight_fp32_activation "
        "fbgemm_linear_int8_weight fbgemm_linear_int8_weight_fp32_activation "
        "fbgemm_linear_quantize_weight fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix "
        "native_batch_norm native_dropout native_group_norm native_layer_norm native_norm "
        "batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt "
        "batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats "
        "batch_norm_update_stats affine_grid_generator grid_sampler grid_sampler_2d "
        "grid_sampler_3d conv_tbc norm_except_dim embedding_renorm_ embedding_bag "
        "segment_reduce autocast_decrement_nesting autocast_increment_nesting "
        "clear_autocast_cache init_num_threads hash_tensor"
    ),
    # Compressed sparse layouts (CSR/CSC/BSR/BSC) and the legacy sparse products; jtensor's
    # sparse tensors are COO (torch.sparse_coo).
    "sparse": _names(
        "sparse_bsc sparse_bsc_tensor sparse_bsr sparse_bsr_tensor sparse_compressed_tensor "
        "sparse_csc sparse_csc_tensor sparse_csr sparse_csr_tensor ccol_indices_copy "
        "col_indices_copy crow_indices_copy row_indices_copy resize_as_sparse_ smm saddmm hsmm "
        "dsmm sspaddmm hspmm indices_copy values_copy"
    ),
    # Packaging, memory-mapped files and the zip-archive reader/writer behind torch.save
    # (jtensor.save writes the same format in Python).
    "packaging": _names(
        "package from_file PyTorchFileReader PyTorchFileWriter "
        "SerializationStorageContext DeserializationStorageContext"
    ),
    # Nested (jagged) tensors and masked tensors: prototype tensor subclasses with their own
    # operator coverage.
    "prototypes": _names("nested jagged masked"),
}
# Deliberate omissions from torch.Tensor.
_TENSOR_OMITTED = {
    # Quantization.
    "quantization": _names(
        "dequantize int_repr q_per_channel_axis q_per_channel_scales q_per_channel_zero_points "
        "q_scale q_zero_point qscheme"
    ),
    # Compressed sparse layouts and the legacy sparse methods (jtensor's sparse is COO).
    "sparse": _names(
        "ccol_indices col_indices crow_indices row_indices to_sparse_bsc to_sparse_bsr "
        "to_sparse_csc to_sparse_csr resize_as_sparse_ smm sspaddmm sparse_resize_ "
        "sparse_resize_and_clear_"
    ),
    # Other backends and layouts: IPU, MTIA, XPU, oneDNN, nested, distributed.
    "backends": _names("ipu mtia xpu to_mkldnn to_padded_tensor is_distributed"),
    # TorchScript-era helpers: map2_ (a CPU-only Python callback over three tensors),
    # module_load (nn.Module.load_state_dict's assign hook for subclasses), hash_tensor.
    "internals": _names("map2_ module_load hash_tensor grad_dtype"),
    # First-class dimensions (functorch.dim): ``index`` binds positions to Dim objects.
    "first-class dims": _names("index"),
}

OMITTED = {
    "torch": set().union(*_TORCH_OMITTED.values()),
    "Tensor": set().union(*_TENSOR_OMITTED.values()),
}

# Known gaps (issue 15), most valuable first; remove a name when it lands.
PENDING = {
    "torch": _names(
        # ops: slice_copy (no registered slice op to copy), the scatter/inverse of views,
        # lobpcg, the short-time Fourier transforms, the legacy DLPack capsule
        "slice_copy as_strided_scatter slice_inverse lobpcg stft istft to_dlpack "
        # dtypes jtensor's promotion table does not hold yet
        "complex32 chalf uint16 uint32 uint64 "
        # autocast's global setters: jtensor's autocast state is per region, not per device
        "set_autocast_enabled set_autocast_dtype set_autocast_cpu_enabled "
        "set_autocast_cpu_dtype set_autocast_gpu_dtype is_autocast_cache_enabled "
        "set_autocast_cache_enabled "
        # namespaces and device-generic classes
        "storage Event Stream signal windows quasirandom"
    ),
    "Tensor": _names("chalf as_strided_scatter slice_inverse stft istft"),
}

NAMESPACES = {
    "torch": (lambda lib: lib),
    "Tensor": (lambda lib: lib.Tensor),
}


# Submodules that appear in torch's namespace only once something imports them (torch.compile
# loads torch.onnx through Dynamo): the ONNX exporter is omitted (jtensor exports no graphs).
_LAZY = {"onnx"}


def _public(namespace):
    return {n for n in dir(namespace) if not n.startswith("_")} - _LAZY


def test_groups_do_not_overlap():
    for key, groups in (("torch", _TORCH_OMITTED), ("Tensor", _TENSOR_OMITTED)):
        seen = set()
        for names in groups.values():
            assert not names & seen, sorted(names & seen)
            seen |= names
        assert not seen & PENDING[key], sorted(seen & PENDING[key])


@pytest.mark.parametrize("key", sorted(NAMESPACES))
def test_no_new_gap(key):
    get = NAMESPACES[key]
    missing = _public(get(torch)) - _public(get(jtensor)) - OMITTED[key] - PENDING[key]
    assert not missing, (
        f"torch{'.' + key if key != 'torch' else ''} names missing from jtensor (implement "
        f"them, or list them in OMITTED/PENDING with a reason): {sorted(missing)}"
    )


@pytest.mark.parametrize("key", sorted(NAMESPACES))
def test_pending_list_is_current(key):
    get = NAMESPACES[key]
    landed = PENDING[key] & _public(get(jtensor))
    assert not landed, f"now implemented, remove from PENDING[{key!r}]: {sorted(landed)}"
    vanished = (PENDING[key] | OMITTED[key]) - _public(get(torch))
    assert not vanished, f"no longer in torch, remove from the lists: {sorted(vanished)}"
