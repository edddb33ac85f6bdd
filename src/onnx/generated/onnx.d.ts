import * as $protobuf from "protobufjs";
import Long = require("long");
export namespace onnx {

    enum Version {
        _START_VERSION = 0,
        IR_VERSION_2017_10_10 = 1,
        IR_VERSION_2017_10_30 = 2,
        IR_VERSION_2017_11_3 = 3,
        IR_VERSION_2019_1_22 = 4,
        IR_VERSION_2019_3_18 = 5,
        IR_VERSION_2019_9_19 = 6,
        IR_VERSION_2020_5_8 = 7,
        IR_VERSION_2021_7_30 = 8,
        IR_VERSION_2023_5_5 = 9,
        IR_VERSION_2024_3_25 = 10,
        IR_VERSION_2025_05_12 = 11,
        IR_VERSION_2025_08_26 = 12,
        IR_VERSION_2025_11_06 = 13,
        IR_VERSION = 14
    }

    interface IAttributeProto {

        $unknownFields?: Uint8Array[];
        name?: (string|null);
        ref_attr_name?: (string|null);
        doc_string?: (string|null);
        type?: (onnx.AttributeProto.AttributeType|null);
        f?: (number|null);
        i?: (number|Long|null);
        s?: (Uint8Array|null);
        t?: (onnx.ITensorProto|null);
        g?: (onnx.IGraphProto|null);
        sparse_tensor?: (onnx.ISparseTensorProto|null);
        tp?: (onnx.ITypeProto|null);
        floats?: (number[]|null);
        ints?: ((number|Long)[]|null);
        strings?: (Uint8Array[]|null);
        tensors?: (onnx.ITensorProto[]|null);
        graphs?: (onnx.IGraphProto[]|null);
        sparse_tensors?: (onnx.ISparseTensorProto[]|null);
        type_protos?: (onnx.ITypeProto[]|null);
    }

    class AttributeProto implements IAttributeProto {
        constructor(properties?: onnx.IAttributeProto);
        public name: string;
        public ref_attr_name: string;
        public doc_string: string;
        public type: onnx.AttributeProto.AttributeType;
        public f: number;
        public i: Long;
        public s: Uint8Array;
        public t?: (onnx.ITensorProto|null);
        public g?: (onnx.IGraphProto|null);
        public sparse_tensor?: (onnx.ISparseTensorProto|null);
        public tp?: (onnx.ITypeProto|null);
        public floats: number[];
        public ints: Long[];
        public strings: Uint8Array[];
        public tensors: onnx.ITensorProto[];
        public graphs: onnx.IGraphProto[];
        public sparse_tensors: onnx.ISparseTensorProto[];
        public type_protos: onnx.ITypeProto[];
        public static create(properties?: onnx.IAttributeProto): onnx.AttributeProto;
        public static encode(message: onnx.IAttributeProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.AttributeProto;
    }

    namespace AttributeProto {

        enum AttributeType {
            UNDEFINED = 0,
            FLOAT = 1,
            INT = 2,
            STRING = 3,
            TENSOR = 4,
            GRAPH = 5,
            SPARSE_TENSOR = 11,
            TYPE_PROTO = 13,
            FLOATS = 6,
            INTS = 7,
            STRINGS = 8,
            TENSORS = 9,
            GRAPHS = 10,
            SPARSE_TENSORS = 12,
            TYPE_PROTOS = 14
        }
    }

    interface IValueInfoProto {

        $unknownFields?: Uint8Array[];
        name?: (string|null);
        type?: (onnx.ITypeProto|null);
        doc_string?: (string|null);
        metadata_props?: (onnx.IStringStringEntryProto[]|null);
    }

    class ValueInfoProto implements IValueInfoProto {
        constructor(properties?: onnx.IValueInfoProto);
        public name: string;
        public type?: (onnx.ITypeProto|null);
        public doc_string: string;
        public metadata_props: onnx.IStringStringEntryProto[];
        public static create(properties?: onnx.IValueInfoProto): onnx.ValueInfoProto;
        public static encode(message: onnx.IValueInfoProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.ValueInfoProto;
    }

    interface INodeProto {

        $unknownFields?: Uint8Array[];
        input?: (string[]|null);
        output?: (string[]|null);
        name?: (string|null);
        op_type?: (string|null);
        domain?: (string|null);
        overload?: (string|null);
        attribute?: (onnx.IAttributeProto[]|null);
        doc_string?: (string|null);
        metadata_props?: (onnx.IStringStringEntryProto[]|null);
        device_configurations?: (onnx.INodeDeviceConfigurationProto[]|null);
    }

    class NodeProto implements INodeProto {
        constructor(properties?: onnx.INodeProto);
        public input: string[];
        public output: string[];
        public name: string;
        public op_type: string;
        public domain: string;
        public overload: string;
        public attribute: onnx.IAttributeProto[];
        public doc_string: string;
        public metadata_props: onnx.IStringStringEntryProto[];
        public device_configurations: onnx.INodeDeviceConfigurationProto[];
        public static create(properties?: onnx.INodeProto): onnx.NodeProto;
        public static encode(message: onnx.INodeProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.NodeProto;
    }

    interface IIntIntListEntryProto {

        $unknownFields?: Uint8Array[];
        key?: (number|Long|null);
        value?: ((number|Long)[]|null);
    }

    class IntIntListEntryProto implements IIntIntListEntryProto {
        constructor(properties?: onnx.IIntIntListEntryProto);
        public key: Long;
        public value: Long[];
        public static create(properties?: onnx.IIntIntListEntryProto): onnx.IntIntListEntryProto;
        public static encode(message: onnx.IIntIntListEntryProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.IntIntListEntryProto;
    }

    interface INodeDeviceConfigurationProto {

        $unknownFields?: Uint8Array[];
        configuration_id?: (string|null);
        sharding_spec?: (onnx.IShardingSpecProto[]|null);
        pipeline_stage?: (number|null);
    }

    class NodeDeviceConfigurationProto implements INodeDeviceConfigurationProto {
        constructor(properties?: onnx.INodeDeviceConfigurationProto);
        public configuration_id: string;
        public sharding_spec: onnx.IShardingSpecProto[];
        public pipeline_stage: number;
        public static create(properties?: onnx.INodeDeviceConfigurationProto): onnx.NodeDeviceConfigurationProto;
        public static encode(message: onnx.INodeDeviceConfigurationProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.NodeDeviceConfigurationProto;
    }

    interface IShardingSpecProto {

        $unknownFields?: Uint8Array[];
        tensor_name?: (string|null);
        device?: ((number|Long)[]|null);
        index_to_device_group_map?: (onnx.IIntIntListEntryProto[]|null);
        sharded_dim?: (onnx.IShardedDimProto[]|null);
    }

    class ShardingSpecProto implements IShardingSpecProto {
        constructor(properties?: onnx.IShardingSpecProto);
        public tensor_name: string;
        public device: Long[];
        public index_to_device_group_map: onnx.IIntIntListEntryProto[];
        public sharded_dim: onnx.IShardedDimProto[];
        public static create(properties?: onnx.IShardingSpecProto): onnx.ShardingSpecProto;
        public static encode(message: onnx.IShardingSpecProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.ShardingSpecProto;
    }

    interface IShardedDimProto {

        $unknownFields?: Uint8Array[];
        axis?: (number|Long|null);
        simple_sharding?: (onnx.ISimpleShardedDimProto[]|null);
    }

    class ShardedDimProto implements IShardedDimProto {
        constructor(properties?: onnx.IShardedDimProto);
        public axis: Long;
        public simple_sharding: onnx.ISimpleShardedDimProto[];
        public static create(properties?: onnx.IShardedDimProto): onnx.ShardedDimProto;
        public static encode(message: onnx.IShardedDimProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.ShardedDimProto;
    }

    interface ISimpleShardedDimProto {

        $unknownFields?: Uint8Array[];
        dim_value?: (number|Long|null);
        dim_param?: (string|null);
        num_shards?: (number|Long|null);
    }

    class SimpleShardedDimProto implements ISimpleShardedDimProto {
        constructor(properties?: onnx.ISimpleShardedDimProto);
        public dim_value?: (number|Long|null);
        public dim_param?: (string|null);
        public num_shards: Long;
        public dim?: ("dim_value"|"dim_param");
        public static create(properties?: onnx.ISimpleShardedDimProto): onnx.SimpleShardedDimProto;
        public static encode(message: onnx.ISimpleShardedDimProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.SimpleShardedDimProto;
    }

    interface ITrainingInfoProto {

        $unknownFields?: Uint8Array[];
        initialization?: (onnx.IGraphProto|null);
        algorithm?: (onnx.IGraphProto|null);
        initialization_binding?: (onnx.IStringStringEntryProto[]|null);
        update_binding?: (onnx.IStringStringEntryProto[]|null);
    }

    class TrainingInfoProto implements ITrainingInfoProto {
        constructor(properties?: onnx.ITrainingInfoProto);
        public initialization?: (onnx.IGraphProto|null);
        public algorithm?: (onnx.IGraphProto|null);
        public initialization_binding: onnx.IStringStringEntryProto[];
        public update_binding: onnx.IStringStringEntryProto[];
        public static create(properties?: onnx.ITrainingInfoProto): onnx.TrainingInfoProto;
        public static encode(message: onnx.ITrainingInfoProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TrainingInfoProto;
    }

    interface IModelProto {

        $unknownFields?: Uint8Array[];
        ir_version?: (number|Long|null);
        opset_import?: (onnx.IOperatorSetIdProto[]|null);
        producer_name?: (string|null);
        producer_version?: (string|null);
        domain?: (string|null);
        model_version?: (number|Long|null);
        doc_string?: (string|null);
        graph?: (onnx.IGraphProto|null);
        metadata_props?: (onnx.IStringStringEntryProto[]|null);
        training_info?: (onnx.ITrainingInfoProto[]|null);
        functions?: (onnx.IFunctionProto[]|null);
        configuration?: (onnx.IDeviceConfigurationProto[]|null);
    }

    class ModelProto implements IModelProto {
        constructor(properties?: onnx.IModelProto);
        public ir_version: Long;
        public opset_import: onnx.IOperatorSetIdProto[];
        public producer_name: string;
        public producer_version: string;
        public domain: string;
        public model_version: Long;
        public doc_string: string;
        public graph?: (onnx.IGraphProto|null);
        public metadata_props: onnx.IStringStringEntryProto[];
        public training_info: onnx.ITrainingInfoProto[];
        public functions: onnx.IFunctionProto[];
        public configuration: onnx.IDeviceConfigurationProto[];
        public static create(properties?: onnx.IModelProto): onnx.ModelProto;
        public static encode(message: onnx.IModelProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.ModelProto;
    }

    interface IDeviceConfigurationProto {

        $unknownFields?: Uint8Array[];
        name?: (string|null);
        num_devices?: (number|null);
        device?: (string[]|null);
    }

    class DeviceConfigurationProto implements IDeviceConfigurationProto {
        constructor(properties?: onnx.IDeviceConfigurationProto);
        public name: string;
        public num_devices: number;
        public device: string[];
        public static create(properties?: onnx.IDeviceConfigurationProto): onnx.DeviceConfigurationProto;
        public static encode(message: onnx.IDeviceConfigurationProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.DeviceConfigurationProto;
    }

    interface IStringStringEntryProto {

        $unknownFields?: Uint8Array[];
        key?: (string|null);
        value?: (string|null);
    }

    class StringStringEntryProto implements IStringStringEntryProto {
        constructor(properties?: onnx.IStringStringEntryProto);
        public key: string;
        public value: string;
        public static create(properties?: onnx.IStringStringEntryProto): onnx.StringStringEntryProto;
        public static encode(message: onnx.IStringStringEntryProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.StringStringEntryProto;
    }

    interface ITensorAnnotation {

        $unknownFields?: Uint8Array[];
        tensor_name?: (string|null);
        quant_parameter_tensor_names?: (onnx.IStringStringEntryProto[]|null);
    }

    class TensorAnnotation implements ITensorAnnotation {
        constructor(properties?: onnx.ITensorAnnotation);
        public tensor_name: string;
        public quant_parameter_tensor_names: onnx.IStringStringEntryProto[];
        public static create(properties?: onnx.ITensorAnnotation): onnx.TensorAnnotation;
        public static encode(message: onnx.ITensorAnnotation, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TensorAnnotation;
    }

    interface IGraphProto {

        $unknownFields?: Uint8Array[];
        node?: (onnx.INodeProto[]|null);
        name?: (string|null);
        initializer?: (onnx.ITensorProto[]|null);
        sparse_initializer?: (onnx.ISparseTensorProto[]|null);
        doc_string?: (string|null);
        input?: (onnx.IValueInfoProto[]|null);
        output?: (onnx.IValueInfoProto[]|null);
        value_info?: (onnx.IValueInfoProto[]|null);
        quantization_annotation?: (onnx.ITensorAnnotation[]|null);
        metadata_props?: (onnx.IStringStringEntryProto[]|null);
    }

    class GraphProto implements IGraphProto {
        constructor(properties?: onnx.IGraphProto);
        public node: onnx.INodeProto[];
        public name: string;
        public initializer: onnx.ITensorProto[];
        public sparse_initializer: onnx.ISparseTensorProto[];
        public doc_string: string;
        public input: onnx.IValueInfoProto[];
        public output: onnx.IValueInfoProto[];
        public value_info: onnx.IValueInfoProto[];
        public quantization_annotation: onnx.ITensorAnnotation[];
        public metadata_props: onnx.IStringStringEntryProto[];
        public static create(properties?: onnx.IGraphProto): onnx.GraphProto;
        public static encode(message: onnx.IGraphProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.GraphProto;
    }

    interface ITensorProto {

        $unknownFields?: Uint8Array[];
        dims?: ((number|Long)[]|null);
        data_type?: (number|null);
        segment?: (onnx.TensorProto.ISegment|null);
        float_data?: (number[]|null);
        int32_data?: (number[]|null);
        string_data?: (Uint8Array[]|null);
        int64_data?: ((number|Long)[]|null);
        name?: (string|null);
        doc_string?: (string|null);
        raw_data?: (Uint8Array|null);
        external_data?: (onnx.IStringStringEntryProto[]|null);
        data_location?: (onnx.TensorProto.DataLocation|null);
        double_data?: (number[]|null);
        uint64_data?: ((number|Long)[]|null);
        metadata_props?: (onnx.IStringStringEntryProto[]|null);
    }

    class TensorProto implements ITensorProto {
        constructor(properties?: onnx.ITensorProto);
        public dims: Long[];
        public data_type: number;
        public segment?: (onnx.TensorProto.ISegment|null);
        public float_data: number[];
        public int32_data: number[];
        public string_data: Uint8Array[];
        public int64_data: Long[];
        public name: string;
        public doc_string: string;
        public raw_data: Uint8Array;
        public external_data: onnx.IStringStringEntryProto[];
        public data_location: onnx.TensorProto.DataLocation;
        public double_data: number[];
        public uint64_data: Long[];
        public metadata_props: onnx.IStringStringEntryProto[];
        public static create(properties?: onnx.ITensorProto): onnx.TensorProto;
        public static encode(message: onnx.ITensorProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TensorProto;
    }

    namespace TensorProto {

        enum DataType {
            UNDEFINED = 0,
            FLOAT = 1,
            UINT8 = 2,
            INT8 = 3,
            UINT16 = 4,
            INT16 = 5,
            INT32 = 6,
            INT64 = 7,
            STRING = 8,
            BOOL = 9,
            FLOAT16 = 10,
            DOUBLE = 11,
            UINT32 = 12,
            UINT64 = 13,
            COMPLEX64 = 14,
            COMPLEX128 = 15,
            BFLOAT16 = 16,
            FLOAT8E4M3FN = 17,
            FLOAT8E4M3FNUZ = 18,
            FLOAT8E5M2 = 19,
            FLOAT8E5M2FNUZ = 20,
            UINT4 = 21,
            INT4 = 22,
            FLOAT4E2M1 = 23,
            FLOAT8E8M0 = 24,
            UINT2 = 25,
            INT2 = 26
        }

        interface ISegment {

            $unknownFields?: Uint8Array[];
            begin?: (number|Long|null);
            end?: (number|Long|null);
        }

        class Segment implements ISegment {
            constructor(properties?: onnx.TensorProto.ISegment);
            public begin: Long;
            public end: Long;
            public static create(properties?: onnx.TensorProto.ISegment): onnx.TensorProto.Segment;
            public static encode(message: onnx.TensorProto.ISegment, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TensorProto.Segment;
        }

        enum DataLocation {
            DEFAULT = 0,
            EXTERNAL = 1
        }
    }

    interface ISparseTensorProto {

        $unknownFields?: Uint8Array[];
        values?: (onnx.ITensorProto|null);
        indices?: (onnx.ITensorProto|null);
        dims?: ((number|Long)[]|null);
    }

    class SparseTensorProto implements ISparseTensorProto {
        constructor(properties?: onnx.ISparseTensorProto);
        public values?: (onnx.ITensorProto|null);
        public indices?: (onnx.ITensorProto|null);
        public dims: Long[];
        public static create(properties?: onnx.ISparseTensorProto): onnx.SparseTensorProto;
        public static encode(message: onnx.ISparseTensorProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.SparseTensorProto;
    }

    interface ITensorShapeProto {

        $unknownFields?: Uint8Array[];
        dim?: (onnx.TensorShapeProto.IDimension[]|null);
    }

    class TensorShapeProto implements ITensorShapeProto {
        constructor(properties?: onnx.ITensorShapeProto);
        public dim: onnx.TensorShapeProto.IDimension[];
        public static create(properties?: onnx.ITensorShapeProto): onnx.TensorShapeProto;
        public static encode(message: onnx.ITensorShapeProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TensorShapeProto;
    }

    namespace TensorShapeProto {

        interface IDimension {

            $unknownFields?: Uint8Array[];
            dim_value?: (number|Long|null);
            dim_param?: (string|null);
            denotation?: (string|null);
        }

        class Dimension implements IDimension {
            constructor(properties?: onnx.TensorShapeProto.IDimension);
            public dim_value?: (number|Long|null);
            public dim_param?: (string|null);
            public denotation: string;
            public value?: ("dim_value"|"dim_param");
            public static create(properties?: onnx.TensorShapeProto.IDimension): onnx.TensorShapeProto.Dimension;
            public static encode(message: onnx.TensorShapeProto.IDimension, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TensorShapeProto.Dimension;
        }
    }

    interface ITypeProto {

        $unknownFields?: Uint8Array[];
        tensor_type?: (onnx.TypeProto.ITensor|null);
        sequence_type?: (onnx.TypeProto.ISequence|null);
        map_type?: (onnx.TypeProto.IMap|null);
        optional_type?: (onnx.TypeProto.IOptional|null);
        sparse_tensor_type?: (onnx.TypeProto.ISparseTensor|null);
        opaque_type?: (onnx.TypeProto.IOpaque|null);
        denotation?: (string|null);
    }

    class TypeProto implements ITypeProto {
        constructor(properties?: onnx.ITypeProto);
        public tensor_type?: (onnx.TypeProto.ITensor|null);
        public sequence_type?: (onnx.TypeProto.ISequence|null);
        public map_type?: (onnx.TypeProto.IMap|null);
        public optional_type?: (onnx.TypeProto.IOptional|null);
        public sparse_tensor_type?: (onnx.TypeProto.ISparseTensor|null);
        public opaque_type?: (onnx.TypeProto.IOpaque|null);
        public denotation: string;
        public value?: ("tensor_type"|"sequence_type"|"map_type"|"optional_type"|"sparse_tensor_type"|"opaque_type");
        public static create(properties?: onnx.ITypeProto): onnx.TypeProto;
        public static encode(message: onnx.ITypeProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto;
    }

    namespace TypeProto {

        interface ITensor {

            $unknownFields?: Uint8Array[];
            elem_type?: (number|null);
            shape?: (onnx.ITensorShapeProto|null);
        }

        class Tensor implements ITensor {
            constructor(properties?: onnx.TypeProto.ITensor);
            public elem_type: number;
            public shape?: (onnx.ITensorShapeProto|null);
            public static create(properties?: onnx.TypeProto.ITensor): onnx.TypeProto.Tensor;
            public static encode(message: onnx.TypeProto.ITensor, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto.Tensor;
        }

        interface ISequence {

            $unknownFields?: Uint8Array[];
            elem_type?: (onnx.ITypeProto|null);
        }

        class Sequence implements ISequence {
            constructor(properties?: onnx.TypeProto.ISequence);
            public elem_type?: (onnx.ITypeProto|null);
            public static create(properties?: onnx.TypeProto.ISequence): onnx.TypeProto.Sequence;
            public static encode(message: onnx.TypeProto.ISequence, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto.Sequence;
        }

        interface IMap {

            $unknownFields?: Uint8Array[];
            key_type?: (number|null);
            value_type?: (onnx.ITypeProto|null);
        }

        class Map implements IMap {
            constructor(properties?: onnx.TypeProto.IMap);
            public key_type: number;
            public value_type?: (onnx.ITypeProto|null);
            public static create(properties?: onnx.TypeProto.IMap): onnx.TypeProto.Map;
            public static encode(message: onnx.TypeProto.IMap, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto.Map;
        }

        interface IOptional {

            $unknownFields?: Uint8Array[];
            elem_type?: (onnx.ITypeProto|null);
        }

        class Optional implements IOptional {
            constructor(properties?: onnx.TypeProto.IOptional);
            public elem_type?: (onnx.ITypeProto|null);
            public static create(properties?: onnx.TypeProto.IOptional): onnx.TypeProto.Optional;
            public static encode(message: onnx.TypeProto.IOptional, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto.Optional;
        }

        interface ISparseTensor {

            $unknownFields?: Uint8Array[];
            elem_type?: (number|null);
            shape?: (onnx.ITensorShapeProto|null);
        }

        class SparseTensor implements ISparseTensor {
            constructor(properties?: onnx.TypeProto.ISparseTensor);
            public elem_type: number;
            public shape?: (onnx.ITensorShapeProto|null);
            public static create(properties?: onnx.TypeProto.ISparseTensor): onnx.TypeProto.SparseTensor;
            public static encode(message: onnx.TypeProto.ISparseTensor, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto.SparseTensor;
        }

        interface IOpaque {

            $unknownFields?: Uint8Array[];
            domain?: (string|null);
            name?: (string|null);
        }

        class Opaque implements IOpaque {
            constructor(properties?: onnx.TypeProto.IOpaque);
            public domain: string;
            public name: string;
            public static create(properties?: onnx.TypeProto.IOpaque): onnx.TypeProto.Opaque;
            public static encode(message: onnx.TypeProto.IOpaque, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.TypeProto.Opaque;
        }
    }

    interface IOperatorSetIdProto {

        $unknownFields?: Uint8Array[];
        domain?: (string|null);
        version?: (number|Long|null);
    }

    class OperatorSetIdProto implements IOperatorSetIdProto {
        constructor(properties?: onnx.IOperatorSetIdProto);
        public domain: string;
        public version: Long;
        public static create(properties?: onnx.IOperatorSetIdProto): onnx.OperatorSetIdProto;
        public static encode(message: onnx.IOperatorSetIdProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.OperatorSetIdProto;
    }

    enum OperatorStatus {
        EXPERIMENTAL = 0,
        STABLE = 1
    }

    interface IFunctionProto {

        $unknownFields?: Uint8Array[];
        name?: (string|null);
        input?: (string[]|null);
        output?: (string[]|null);
        attribute?: (string[]|null);
        attribute_proto?: (onnx.IAttributeProto[]|null);
        node?: (onnx.INodeProto[]|null);
        doc_string?: (string|null);
        opset_import?: (onnx.IOperatorSetIdProto[]|null);
        domain?: (string|null);
        overload?: (string|null);
        value_info?: (onnx.IValueInfoProto[]|null);
        metadata_props?: (onnx.IStringStringEntryProto[]|null);
    }

    class FunctionProto implements IFunctionProto {
        constructor(properties?: onnx.IFunctionProto);
        public name: string;
        public input: string[];
        public output: string[];
        public attribute: string[];
        public attribute_proto: onnx.IAttributeProto[];
        public node: onnx.INodeProto[];
        public doc_string: string;
        public opset_import: onnx.IOperatorSetIdProto[];
        public domain: string;
        public overload: string;
        public value_info: onnx.IValueInfoProto[];
        public metadata_props: onnx.IStringStringEntryProto[];
        public static create(properties?: onnx.IFunctionProto): onnx.FunctionProto;
        public static encode(message: onnx.IFunctionProto, writer?: $protobuf.Writer): $protobuf.Writer;
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): onnx.FunctionProto;
    }
}
