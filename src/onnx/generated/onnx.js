/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars*/
import $protobuf from "protobufjs/minimal.js";

// Common aliases
const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;

// A name through the decode's name table when codec.ts installed one (src/onnx/name-table.ts), else as protobufjs reads it.
function readName(reader) {
    const names = $util.onnxNameTable;
    return names != null && reader.buf.utf8Slice !== undefined ? names.read(reader) : reader.string();
}

// Passed as `properties` by a decode that shares empty repeated fields (codec.ts): the constructor then leaves those fields to the prototype's frozen empty array.
const SHARED_EMPTY_FIELDS = Object.freeze({});

// Signed int64 values 0..4095 as shared Long instances, filled on first use.
const SHARED_INT64 = new Array(4096);
const SHARED_INT64_LIMIT = SHARED_INT64.length;

// reader.int64(), except that a small non-negative value is a shared instance; a one-byte varint is read here directly.
function readInt64(reader) {
    const pos = reader.pos;
    if ($util.Long && pos < reader.len && reader.buf[pos] < 128) {
        const low = reader.buf[pos];
        reader.pos = pos + 1;
        return SHARED_INT64[low] || (SHARED_INT64[low] = new $util.Long(low, 0, false));
    }
    const value = reader.int64();
    if (value.high !== 0 || value.low < 0 || value.low >= SHARED_INT64_LIMIT) return value;
    return SHARED_INT64[value.low] || (SHARED_INT64[value.low] = value);
}

// Appends to a decoded repeated field; up to four values the array is an exact-size literal (a push
// would reserve 17 slots), and a field still on the prototype's frozen empty array gets its own.
function pushExact(array, value) {
    switch (array.length) {
    case 0: return [value];
    case 1: return [array[0], value];
    case 2: return [array[0], array[1], value];
    case 3: return [array[0], array[1], array[2], value];
    default: array.push(value); return array;
    }
}

// Copies already-encoded bytes (an unknown field with its tag) into the output unchanged.
function writeRawBytes(val, buf, pos) {
    for (var i = 0; i < val.length; ++i) buf[pos + i] = val[i];
}

// Exported root namespace
const $root = $protobuf.roots["default"] || ($protobuf.roots["default"] = {});

export const onnx = $root.onnx = (() => {

    /**
     * Namespace onnx.
     * @exports onnx
     * @namespace
     */
    const onnx = {};

    /**
     * Version enum.
     * @name onnx.Version
     * @enum {number}
     * @property {number} _START_VERSION=0 _START_VERSION value
     * @property {number} IR_VERSION_2017_10_10=1 IR_VERSION_2017_10_10 value
     * @property {number} IR_VERSION_2017_10_30=2 IR_VERSION_2017_10_30 value
     * @property {number} IR_VERSION_2017_11_3=3 IR_VERSION_2017_11_3 value
     * @property {number} IR_VERSION_2019_1_22=4 IR_VERSION_2019_1_22 value
     * @property {number} IR_VERSION_2019_3_18=5 IR_VERSION_2019_3_18 value
     * @property {number} IR_VERSION_2019_9_19=6 IR_VERSION_2019_9_19 value
     * @property {number} IR_VERSION_2020_5_8=7 IR_VERSION_2020_5_8 value
     * @property {number} IR_VERSION_2021_7_30=8 IR_VERSION_2021_7_30 value
     * @property {number} IR_VERSION_2023_5_5=9 IR_VERSION_2023_5_5 value
     * @property {number} IR_VERSION_2024_3_25=10 IR_VERSION_2024_3_25 value
     * @property {number} IR_VERSION_2025_05_12=11 IR_VERSION_2025_05_12 value
     * @property {number} IR_VERSION_2025_08_26=12 IR_VERSION_2025_08_26 value
     * @property {number} IR_VERSION_2025_11_06=13 IR_VERSION_2025_11_06 value
     * @property {number} IR_VERSION=14 IR_VERSION value
     */
    onnx.Version = (function() {
        const valuesById = {}, values = Object.create(valuesById);
        values[valuesById[0] = "_START_VERSION"] = 0;
        values[valuesById[1] = "IR_VERSION_2017_10_10"] = 1;
        values[valuesById[2] = "IR_VERSION_2017_10_30"] = 2;
        values[valuesById[3] = "IR_VERSION_2017_11_3"] = 3;
        values[valuesById[4] = "IR_VERSION_2019_1_22"] = 4;
        values[valuesById[5] = "IR_VERSION_2019_3_18"] = 5;
        values[valuesById[6] = "IR_VERSION_2019_9_19"] = 6;
        values[valuesById[7] = "IR_VERSION_2020_5_8"] = 7;
        values[valuesById[8] = "IR_VERSION_2021_7_30"] = 8;
        values[valuesById[9] = "IR_VERSION_2023_5_5"] = 9;
        values[valuesById[10] = "IR_VERSION_2024_3_25"] = 10;
        values[valuesById[11] = "IR_VERSION_2025_05_12"] = 11;
        values[valuesById[12] = "IR_VERSION_2025_08_26"] = 12;
        values[valuesById[13] = "IR_VERSION_2025_11_06"] = 13;
        values[valuesById[14] = "IR_VERSION"] = 14;
        return values;
    })();

    onnx.AttributeProto = (function() {

        /**
         * Properties of an AttributeProto.
         * @memberof onnx
         * @interface IAttributeProto
         * @property {string|null} [name] AttributeProto name
         * @property {string|null} [ref_attr_name] AttributeProto ref_attr_name
         * @property {string|null} [doc_string] AttributeProto doc_string
         * @property {onnx.AttributeProto.AttributeType|null} [type] AttributeProto type
         * @property {number|null} [f] AttributeProto f
         * @property {Long|null} [i] AttributeProto i
         * @property {Uint8Array|null} [s] AttributeProto s
         * @property {onnx.ITensorProto|null} [t] AttributeProto t
         * @property {onnx.IGraphProto|null} [g] AttributeProto g
         * @property {onnx.ISparseTensorProto|null} [sparse_tensor] AttributeProto sparse_tensor
         * @property {onnx.ITypeProto|null} [tp] AttributeProto tp
         * @property {Array.<number>|null} [floats] AttributeProto floats
         * @property {Array.<Long>|null} [ints] AttributeProto ints
         * @property {Array.<Uint8Array>|null} [strings] AttributeProto strings
         * @property {Array.<onnx.ITensorProto>|null} [tensors] AttributeProto tensors
         * @property {Array.<onnx.IGraphProto>|null} [graphs] AttributeProto graphs
         * @property {Array.<onnx.ISparseTensorProto>|null} [sparse_tensors] AttributeProto sparse_tensors
         * @property {Array.<onnx.ITypeProto>|null} [type_protos] AttributeProto type_protos
         */

        /**
         * Constructs a new AttributeProto.
         * @memberof onnx
         * @classdesc Represents an AttributeProto.
         * @implements IAttributeProto
         * @constructor
         * @param {onnx.IAttributeProto=} [properties] Properties to set
         */
        function AttributeProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.floats = [];
                this.ints = [];
                this.strings = [];
                this.tensors = [];
                this.graphs = [];
                this.sparse_tensors = [];
                this.type_protos = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * AttributeProto name.
         * @member {string} name
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.name = "";

        /**
         * AttributeProto ref_attr_name.
         * @member {string} ref_attr_name
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.ref_attr_name = "";

        /**
         * AttributeProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.doc_string = "";

        /**
         * AttributeProto type.
         * @member {onnx.AttributeProto.AttributeType} type
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.type = 0;

        /**
         * AttributeProto f.
         * @member {number} f
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.f = 0;

        /**
         * AttributeProto i.
         * @member {Long} i
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.i = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * AttributeProto s.
         * @member {Uint8Array} s
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.s = $util.newBuffer([]);

        /**
         * AttributeProto t.
         * @member {onnx.ITensorProto|null|undefined} t
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.t = null;

        /**
         * AttributeProto g.
         * @member {onnx.IGraphProto|null|undefined} g
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.g = null;

        /**
         * AttributeProto sparse_tensor.
         * @member {onnx.ISparseTensorProto|null|undefined} sparse_tensor
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.sparse_tensor = null;

        /**
         * AttributeProto tp.
         * @member {onnx.ITypeProto|null|undefined} tp
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.tp = null;

        /**
         * AttributeProto floats.
         * @member {Array.<number>} floats
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.floats = $util.emptyArray;

        /**
         * AttributeProto ints.
         * @member {Array.<Long>} ints
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.ints = $util.emptyArray;

        /**
         * AttributeProto strings.
         * @member {Array.<Uint8Array>} strings
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.strings = $util.emptyArray;

        /**
         * AttributeProto tensors.
         * @member {Array.<onnx.ITensorProto>} tensors
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.tensors = $util.emptyArray;

        /**
         * AttributeProto graphs.
         * @member {Array.<onnx.IGraphProto>} graphs
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.graphs = $util.emptyArray;

        /**
         * AttributeProto sparse_tensors.
         * @member {Array.<onnx.ISparseTensorProto>} sparse_tensors
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.sparse_tensors = $util.emptyArray;

        /**
         * AttributeProto type_protos.
         * @member {Array.<onnx.ITypeProto>} type_protos
         * @memberof onnx.AttributeProto
         * @instance
         */
        AttributeProto.prototype.type_protos = $util.emptyArray;

        /**
         * Creates a new AttributeProto instance using the specified properties.
         * @function create
         * @memberof onnx.AttributeProto
         * @static
         * @param {onnx.IAttributeProto=} [properties] Properties to set
         * @returns {onnx.AttributeProto} AttributeProto instance
         */
        AttributeProto.create = function create(properties) {
            return new AttributeProto(properties);
        };

        /**
         * Encodes the specified AttributeProto message. Does not implicitly {@link onnx.AttributeProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.AttributeProto
         * @static
         * @param {onnx.IAttributeProto} message AttributeProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        AttributeProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
            if (message.f != null && Object.hasOwnProperty.call(message, "f"))
                writer.uint32(/* id 2, wireType 5 =*/21).float(message.f);
            if (message.i != null && Object.hasOwnProperty.call(message, "i"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.i);
            if (message.s != null && Object.hasOwnProperty.call(message, "s"))
                writer.uint32(/* id 4, wireType 2 =*/34).bytes(message.s);
            if (message.t != null && Object.hasOwnProperty.call(message, "t"))
                $root.onnx.TensorProto.encode(message.t, writer.uint32(/* id 5, wireType 2 =*/42).fork(), q + 1).ldelim();
            if (message.g != null && Object.hasOwnProperty.call(message, "g"))
                $root.onnx.GraphProto.encode(message.g, writer.uint32(/* id 6, wireType 2 =*/50).fork(), q + 1).ldelim();
            if (message.floats != null && message.floats.length)
                for (let i = 0; i < message.floats.length; ++i)
                    writer.uint32(/* id 7, wireType 5 =*/61).float(message.floats[i]);
            if (message.ints != null && message.ints.length)
                for (let i = 0; i < message.ints.length; ++i)
                    writer.uint32(/* id 8, wireType 0 =*/64).int64(message.ints[i]);
            if (message.strings != null && message.strings.length)
                for (let i = 0; i < message.strings.length; ++i)
                    writer.uint32(/* id 9, wireType 2 =*/74).bytes(message.strings[i]);
            if (message.tensors != null && message.tensors.length)
                for (let i = 0; i < message.tensors.length; ++i)
                    $root.onnx.TensorProto.encode(message.tensors[i], writer.uint32(/* id 10, wireType 2 =*/82).fork(), q + 1).ldelim();
            if (message.graphs != null && message.graphs.length)
                for (let i = 0; i < message.graphs.length; ++i)
                    $root.onnx.GraphProto.encode(message.graphs[i], writer.uint32(/* id 11, wireType 2 =*/90).fork(), q + 1).ldelim();
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 13, wireType 2 =*/106).string(message.doc_string);
            if (message.tp != null && Object.hasOwnProperty.call(message, "tp"))
                $root.onnx.TypeProto.encode(message.tp, writer.uint32(/* id 14, wireType 2 =*/114).fork(), q + 1).ldelim();
            if (message.type_protos != null && message.type_protos.length)
                for (let i = 0; i < message.type_protos.length; ++i)
                    $root.onnx.TypeProto.encode(message.type_protos[i], writer.uint32(/* id 15, wireType 2 =*/122).fork(), q + 1).ldelim();
            if (message.type != null && Object.hasOwnProperty.call(message, "type"))
                writer.uint32(/* id 20, wireType 0 =*/160).int32(message.type);
            if (message.ref_attr_name != null && Object.hasOwnProperty.call(message, "ref_attr_name"))
                writer.uint32(/* id 21, wireType 2 =*/170).string(message.ref_attr_name);
            if (message.sparse_tensor != null && Object.hasOwnProperty.call(message, "sparse_tensor"))
                $root.onnx.SparseTensorProto.encode(message.sparse_tensor, writer.uint32(/* id 22, wireType 2 =*/178).fork(), q + 1).ldelim();
            if (message.sparse_tensors != null && message.sparse_tensors.length)
                for (let i = 0; i < message.sparse_tensors.length; ++i)
                    $root.onnx.SparseTensorProto.encode(message.sparse_tensors[i], writer.uint32(/* id 23, wireType 2 =*/186).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes an AttributeProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.AttributeProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.AttributeProto} AttributeProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        AttributeProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.AttributeProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.name = reader.string();
                        break;
                    }
                case 21: {
                        message.ref_attr_name = reader.string();
                        break;
                    }
                case 13: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 20: {
                        message.type = reader.int32();
                        break;
                    }
                case 2: {
                        message.f = reader.float();
                        break;
                    }
                case 3: {
                        message.i = readInt64(reader);
                        break;
                    }
                case 4: {
                        message.s = reader.bytes();
                        break;
                    }
                case 5: {
                        message.t = $root.onnx.TensorProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 6: {
                        message.g = $root.onnx.GraphProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 22: {
                        message.sparse_tensor = $root.onnx.SparseTensorProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 14: {
                        message.tp = $root.onnx.TypeProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 7: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.floats = pushExact(message.floats, reader.float());
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.floats = pushExact(message.floats, reader.float());
                        break;
                    }
                case 8: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.ints = pushExact(message.ints, readInt64(reader));
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.ints = pushExact(message.ints, readInt64(reader));
                        break;
                    }
                case 9: {
                        message.strings = pushExact(message.strings, reader.bytes());
                        break;
                    }
                case 10: {
                        message.tensors = pushExact(message.tensors, $root.onnx.TensorProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 11: {
                        message.graphs = pushExact(message.graphs, $root.onnx.GraphProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 23: {
                        message.sparse_tensors = pushExact(message.sparse_tensors, $root.onnx.SparseTensorProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 15: {
                        message.type_protos = pushExact(message.type_protos, $root.onnx.TypeProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        /**
         * AttributeType enum.
         * @name onnx.AttributeProto.AttributeType
         * @enum {number}
         * @property {number} UNDEFINED=0 UNDEFINED value
         * @property {number} FLOAT=1 FLOAT value
         * @property {number} INT=2 INT value
         * @property {number} STRING=3 STRING value
         * @property {number} TENSOR=4 TENSOR value
         * @property {number} GRAPH=5 GRAPH value
         * @property {number} SPARSE_TENSOR=11 SPARSE_TENSOR value
         * @property {number} TYPE_PROTO=13 TYPE_PROTO value
         * @property {number} FLOATS=6 FLOATS value
         * @property {number} INTS=7 INTS value
         * @property {number} STRINGS=8 STRINGS value
         * @property {number} TENSORS=9 TENSORS value
         * @property {number} GRAPHS=10 GRAPHS value
         * @property {number} SPARSE_TENSORS=12 SPARSE_TENSORS value
         * @property {number} TYPE_PROTOS=14 TYPE_PROTOS value
         */
        AttributeProto.AttributeType = (function() {
            const valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "UNDEFINED"] = 0;
            values[valuesById[1] = "FLOAT"] = 1;
            values[valuesById[2] = "INT"] = 2;
            values[valuesById[3] = "STRING"] = 3;
            values[valuesById[4] = "TENSOR"] = 4;
            values[valuesById[5] = "GRAPH"] = 5;
            values[valuesById[11] = "SPARSE_TENSOR"] = 11;
            values[valuesById[13] = "TYPE_PROTO"] = 13;
            values[valuesById[6] = "FLOATS"] = 6;
            values[valuesById[7] = "INTS"] = 7;
            values[valuesById[8] = "STRINGS"] = 8;
            values[valuesById[9] = "TENSORS"] = 9;
            values[valuesById[10] = "GRAPHS"] = 10;
            values[valuesById[12] = "SPARSE_TENSORS"] = 12;
            values[valuesById[14] = "TYPE_PROTOS"] = 14;
            return values;
        })();

        return AttributeProto;
    })();

    onnx.ValueInfoProto = (function() {

        /**
         * Properties of a ValueInfoProto.
         * @memberof onnx
         * @interface IValueInfoProto
         * @property {string|null} [name] ValueInfoProto name
         * @property {onnx.ITypeProto|null} [type] ValueInfoProto type
         * @property {string|null} [doc_string] ValueInfoProto doc_string
         * @property {Array.<onnx.IStringStringEntryProto>|null} [metadata_props] ValueInfoProto metadata_props
         */

        /**
         * Constructs a new ValueInfoProto.
         * @memberof onnx
         * @classdesc Represents a ValueInfoProto.
         * @implements IValueInfoProto
         * @constructor
         * @param {onnx.IValueInfoProto=} [properties] Properties to set
         */
        function ValueInfoProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.metadata_props = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * ValueInfoProto name.
         * @member {string} name
         * @memberof onnx.ValueInfoProto
         * @instance
         */
        ValueInfoProto.prototype.name = "";

        /**
         * ValueInfoProto type.
         * @member {onnx.ITypeProto|null|undefined} type
         * @memberof onnx.ValueInfoProto
         * @instance
         */
        ValueInfoProto.prototype.type = null;

        /**
         * ValueInfoProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.ValueInfoProto
         * @instance
         */
        ValueInfoProto.prototype.doc_string = "";

        /**
         * ValueInfoProto metadata_props.
         * @member {Array.<onnx.IStringStringEntryProto>} metadata_props
         * @memberof onnx.ValueInfoProto
         * @instance
         */
        ValueInfoProto.prototype.metadata_props = $util.emptyArray;

        /**
         * Creates a new ValueInfoProto instance using the specified properties.
         * @function create
         * @memberof onnx.ValueInfoProto
         * @static
         * @param {onnx.IValueInfoProto=} [properties] Properties to set
         * @returns {onnx.ValueInfoProto} ValueInfoProto instance
         */
        ValueInfoProto.create = function create(properties) {
            return new ValueInfoProto(properties);
        };

        /**
         * Encodes the specified ValueInfoProto message. Does not implicitly {@link onnx.ValueInfoProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.ValueInfoProto
         * @static
         * @param {onnx.IValueInfoProto} message ValueInfoProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ValueInfoProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
            if (message.type != null && Object.hasOwnProperty.call(message, "type"))
                $root.onnx.TypeProto.encode(message.type, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 3, wireType 2 =*/26).string(message.doc_string);
            if (message.metadata_props != null && message.metadata_props.length)
                for (let i = 0; i < message.metadata_props.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.metadata_props[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a ValueInfoProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.ValueInfoProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.ValueInfoProto} ValueInfoProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ValueInfoProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.ValueInfoProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.name = readName(reader);
                        break;
                    }
                case 2: {
                        message.type = $root.onnx.TypeProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 4: {
                        message.metadata_props = pushExact(message.metadata_props, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return ValueInfoProto;
    })();

    onnx.NodeProto = (function() {

        /**
         * Properties of a NodeProto.
         * @memberof onnx
         * @interface INodeProto
         * @property {Array.<string>|null} [input] NodeProto input
         * @property {Array.<string>|null} [output] NodeProto output
         * @property {string|null} [name] NodeProto name
         * @property {string|null} [op_type] NodeProto op_type
         * @property {string|null} [domain] NodeProto domain
         * @property {string|null} [overload] NodeProto overload
         * @property {Array.<onnx.IAttributeProto>|null} [attribute] NodeProto attribute
         * @property {string|null} [doc_string] NodeProto doc_string
         * @property {Array.<onnx.IStringStringEntryProto>|null} [metadata_props] NodeProto metadata_props
         * @property {Array.<onnx.INodeDeviceConfigurationProto>|null} [device_configurations] NodeProto device_configurations
         */

        /**
         * Constructs a new NodeProto.
         * @memberof onnx
         * @classdesc Represents a NodeProto.
         * @implements INodeProto
         * @constructor
         * @param {onnx.INodeProto=} [properties] Properties to set
         */
        function NodeProto(properties) {
            this.input = [];
            this.output = [];
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.attribute = [];
                this.metadata_props = [];
                this.device_configurations = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * NodeProto input.
         * @member {Array.<string>} input
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.input = $util.emptyArray;

        /**
         * NodeProto output.
         * @member {Array.<string>} output
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.output = $util.emptyArray;

        /**
         * NodeProto name.
         * @member {string} name
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.name = "";

        /**
         * NodeProto op_type.
         * @member {string} op_type
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.op_type = "";

        /**
         * NodeProto domain.
         * @member {string} domain
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.domain = "";

        /**
         * NodeProto overload.
         * @member {string} overload
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.overload = "";

        /**
         * NodeProto attribute.
         * @member {Array.<onnx.IAttributeProto>} attribute
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.attribute = $util.emptyArray;

        /**
         * NodeProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.doc_string = "";

        /**
         * NodeProto metadata_props.
         * @member {Array.<onnx.IStringStringEntryProto>} metadata_props
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.metadata_props = $util.emptyArray;

        /**
         * NodeProto device_configurations.
         * @member {Array.<onnx.INodeDeviceConfigurationProto>} device_configurations
         * @memberof onnx.NodeProto
         * @instance
         */
        NodeProto.prototype.device_configurations = $util.emptyArray;

        /**
         * Creates a new NodeProto instance using the specified properties.
         * @function create
         * @memberof onnx.NodeProto
         * @static
         * @param {onnx.INodeProto=} [properties] Properties to set
         * @returns {onnx.NodeProto} NodeProto instance
         */
        NodeProto.create = function create(properties) {
            return new NodeProto(properties);
        };

        /**
         * Encodes the specified NodeProto message. Does not implicitly {@link onnx.NodeProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.NodeProto
         * @static
         * @param {onnx.INodeProto} message NodeProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        NodeProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.input != null && message.input.length)
                for (let i = 0; i < message.input.length; ++i)
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.input[i]);
            if (message.output != null && message.output.length)
                for (let i = 0; i < message.output.length; ++i)
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.output[i]);
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 3, wireType 2 =*/26).string(message.name);
            if (message.op_type != null && Object.hasOwnProperty.call(message, "op_type"))
                writer.uint32(/* id 4, wireType 2 =*/34).string(message.op_type);
            if (message.attribute != null && message.attribute.length)
                for (let i = 0; i < message.attribute.length; ++i)
                    $root.onnx.AttributeProto.encode(message.attribute[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), q + 1).ldelim();
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 6, wireType 2 =*/50).string(message.doc_string);
            if (message.domain != null && Object.hasOwnProperty.call(message, "domain"))
                writer.uint32(/* id 7, wireType 2 =*/58).string(message.domain);
            if (message.overload != null && Object.hasOwnProperty.call(message, "overload"))
                writer.uint32(/* id 8, wireType 2 =*/66).string(message.overload);
            if (message.metadata_props != null && message.metadata_props.length)
                for (let i = 0; i < message.metadata_props.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.metadata_props[i], writer.uint32(/* id 9, wireType 2 =*/74).fork(), q + 1).ldelim();
            if (message.device_configurations != null && message.device_configurations.length)
                for (let i = 0; i < message.device_configurations.length; ++i)
                    $root.onnx.NodeDeviceConfigurationProto.encode(message.device_configurations[i], writer.uint32(/* id 10, wireType 2 =*/82).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a NodeProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.NodeProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.NodeProto} NodeProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        NodeProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.NodeProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.input = pushExact(message.input, readName(reader));
                        break;
                    }
                case 2: {
                        message.output = pushExact(message.output, readName(reader));
                        break;
                    }
                case 3: {
                        message.name = reader.string();
                        break;
                    }
                case 4: {
                        message.op_type = readName(reader);
                        break;
                    }
                case 7: {
                        message.domain = readName(reader);
                        break;
                    }
                case 8: {
                        message.overload = reader.string();
                        break;
                    }
                case 5: {
                        message.attribute = pushExact(message.attribute, $root.onnx.AttributeProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 6: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 9: {
                        message.metadata_props = pushExact(message.metadata_props, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 10: {
                        message.device_configurations = pushExact(message.device_configurations, $root.onnx.NodeDeviceConfigurationProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return NodeProto;
    })();

    onnx.IntIntListEntryProto = (function() {

        /**
         * Properties of an IntIntListEntryProto.
         * @memberof onnx
         * @interface IIntIntListEntryProto
         * @property {Long|null} [key] IntIntListEntryProto key
         * @property {Array.<Long>|null} [value] IntIntListEntryProto value
         */

        /**
         * Constructs a new IntIntListEntryProto.
         * @memberof onnx
         * @classdesc Represents an IntIntListEntryProto.
         * @implements IIntIntListEntryProto
         * @constructor
         * @param {onnx.IIntIntListEntryProto=} [properties] Properties to set
         */
        function IntIntListEntryProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.value = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * IntIntListEntryProto key.
         * @member {Long} key
         * @memberof onnx.IntIntListEntryProto
         * @instance
         */
        IntIntListEntryProto.prototype.key = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * IntIntListEntryProto value.
         * @member {Array.<Long>} value
         * @memberof onnx.IntIntListEntryProto
         * @instance
         */
        IntIntListEntryProto.prototype.value = $util.emptyArray;

        /**
         * Creates a new IntIntListEntryProto instance using the specified properties.
         * @function create
         * @memberof onnx.IntIntListEntryProto
         * @static
         * @param {onnx.IIntIntListEntryProto=} [properties] Properties to set
         * @returns {onnx.IntIntListEntryProto} IntIntListEntryProto instance
         */
        IntIntListEntryProto.create = function create(properties) {
            return new IntIntListEntryProto(properties);
        };

        /**
         * Encodes the specified IntIntListEntryProto message. Does not implicitly {@link onnx.IntIntListEntryProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.IntIntListEntryProto
         * @static
         * @param {onnx.IIntIntListEntryProto} message IntIntListEntryProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        IntIntListEntryProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.key);
            if (message.value != null && message.value.length)
                for (let i = 0; i < message.value.length; ++i)
                    writer.uint32(/* id 2, wireType 0 =*/16).int64(message.value[i]);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes an IntIntListEntryProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.IntIntListEntryProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.IntIntListEntryProto} IntIntListEntryProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        IntIntListEntryProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.IntIntListEntryProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = readInt64(reader);
                        break;
                    }
                case 2: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.value = pushExact(message.value, readInt64(reader));
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.value = pushExact(message.value, readInt64(reader));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return IntIntListEntryProto;
    })();

    onnx.NodeDeviceConfigurationProto = (function() {

        /**
         * Properties of a NodeDeviceConfigurationProto.
         * @memberof onnx
         * @interface INodeDeviceConfigurationProto
         * @property {string|null} [configuration_id] NodeDeviceConfigurationProto configuration_id
         * @property {Array.<onnx.IShardingSpecProto>|null} [sharding_spec] NodeDeviceConfigurationProto sharding_spec
         * @property {number|null} [pipeline_stage] NodeDeviceConfigurationProto pipeline_stage
         */

        /**
         * Constructs a new NodeDeviceConfigurationProto.
         * @memberof onnx
         * @classdesc Represents a NodeDeviceConfigurationProto.
         * @implements INodeDeviceConfigurationProto
         * @constructor
         * @param {onnx.INodeDeviceConfigurationProto=} [properties] Properties to set
         */
        function NodeDeviceConfigurationProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.sharding_spec = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * NodeDeviceConfigurationProto configuration_id.
         * @member {string} configuration_id
         * @memberof onnx.NodeDeviceConfigurationProto
         * @instance
         */
        NodeDeviceConfigurationProto.prototype.configuration_id = "";

        /**
         * NodeDeviceConfigurationProto sharding_spec.
         * @member {Array.<onnx.IShardingSpecProto>} sharding_spec
         * @memberof onnx.NodeDeviceConfigurationProto
         * @instance
         */
        NodeDeviceConfigurationProto.prototype.sharding_spec = $util.emptyArray;

        /**
         * NodeDeviceConfigurationProto pipeline_stage.
         * @member {number} pipeline_stage
         * @memberof onnx.NodeDeviceConfigurationProto
         * @instance
         */
        NodeDeviceConfigurationProto.prototype.pipeline_stage = 0;

        /**
         * Creates a new NodeDeviceConfigurationProto instance using the specified properties.
         * @function create
         * @memberof onnx.NodeDeviceConfigurationProto
         * @static
         * @param {onnx.INodeDeviceConfigurationProto=} [properties] Properties to set
         * @returns {onnx.NodeDeviceConfigurationProto} NodeDeviceConfigurationProto instance
         */
        NodeDeviceConfigurationProto.create = function create(properties) {
            return new NodeDeviceConfigurationProto(properties);
        };

        /**
         * Encodes the specified NodeDeviceConfigurationProto message. Does not implicitly {@link onnx.NodeDeviceConfigurationProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.NodeDeviceConfigurationProto
         * @static
         * @param {onnx.INodeDeviceConfigurationProto} message NodeDeviceConfigurationProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        NodeDeviceConfigurationProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.configuration_id != null && Object.hasOwnProperty.call(message, "configuration_id"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.configuration_id);
            if (message.sharding_spec != null && message.sharding_spec.length)
                for (let i = 0; i < message.sharding_spec.length; ++i)
                    $root.onnx.ShardingSpecProto.encode(message.sharding_spec[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.pipeline_stage != null && Object.hasOwnProperty.call(message, "pipeline_stage"))
                writer.uint32(/* id 3, wireType 0 =*/24).int32(message.pipeline_stage);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a NodeDeviceConfigurationProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.NodeDeviceConfigurationProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.NodeDeviceConfigurationProto} NodeDeviceConfigurationProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        NodeDeviceConfigurationProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.NodeDeviceConfigurationProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.configuration_id = reader.string();
                        break;
                    }
                case 2: {
                        message.sharding_spec = pushExact(message.sharding_spec, $root.onnx.ShardingSpecProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 3: {
                        message.pipeline_stage = reader.int32();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return NodeDeviceConfigurationProto;
    })();

    onnx.ShardingSpecProto = (function() {

        /**
         * Properties of a ShardingSpecProto.
         * @memberof onnx
         * @interface IShardingSpecProto
         * @property {string|null} [tensor_name] ShardingSpecProto tensor_name
         * @property {Array.<Long>|null} [device] ShardingSpecProto device
         * @property {Array.<onnx.IIntIntListEntryProto>|null} [index_to_device_group_map] ShardingSpecProto index_to_device_group_map
         * @property {Array.<onnx.IShardedDimProto>|null} [sharded_dim] ShardingSpecProto sharded_dim
         */

        /**
         * Constructs a new ShardingSpecProto.
         * @memberof onnx
         * @classdesc Represents a ShardingSpecProto.
         * @implements IShardingSpecProto
         * @constructor
         * @param {onnx.IShardingSpecProto=} [properties] Properties to set
         */
        function ShardingSpecProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.device = [];
                this.index_to_device_group_map = [];
                this.sharded_dim = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * ShardingSpecProto tensor_name.
         * @member {string} tensor_name
         * @memberof onnx.ShardingSpecProto
         * @instance
         */
        ShardingSpecProto.prototype.tensor_name = "";

        /**
         * ShardingSpecProto device.
         * @member {Array.<Long>} device
         * @memberof onnx.ShardingSpecProto
         * @instance
         */
        ShardingSpecProto.prototype.device = $util.emptyArray;

        /**
         * ShardingSpecProto index_to_device_group_map.
         * @member {Array.<onnx.IIntIntListEntryProto>} index_to_device_group_map
         * @memberof onnx.ShardingSpecProto
         * @instance
         */
        ShardingSpecProto.prototype.index_to_device_group_map = $util.emptyArray;

        /**
         * ShardingSpecProto sharded_dim.
         * @member {Array.<onnx.IShardedDimProto>} sharded_dim
         * @memberof onnx.ShardingSpecProto
         * @instance
         */
        ShardingSpecProto.prototype.sharded_dim = $util.emptyArray;

        /**
         * Creates a new ShardingSpecProto instance using the specified properties.
         * @function create
         * @memberof onnx.ShardingSpecProto
         * @static
         * @param {onnx.IShardingSpecProto=} [properties] Properties to set
         * @returns {onnx.ShardingSpecProto} ShardingSpecProto instance
         */
        ShardingSpecProto.create = function create(properties) {
            return new ShardingSpecProto(properties);
        };

        /**
         * Encodes the specified ShardingSpecProto message. Does not implicitly {@link onnx.ShardingSpecProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.ShardingSpecProto
         * @static
         * @param {onnx.IShardingSpecProto} message ShardingSpecProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ShardingSpecProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.tensor_name != null && Object.hasOwnProperty.call(message, "tensor_name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.tensor_name);
            if (message.device != null && message.device.length)
                for (let i = 0; i < message.device.length; ++i)
                    writer.uint32(/* id 2, wireType 0 =*/16).int64(message.device[i]);
            if (message.index_to_device_group_map != null && message.index_to_device_group_map.length)
                for (let i = 0; i < message.index_to_device_group_map.length; ++i)
                    $root.onnx.IntIntListEntryProto.encode(message.index_to_device_group_map[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            if (message.sharded_dim != null && message.sharded_dim.length)
                for (let i = 0; i < message.sharded_dim.length; ++i)
                    $root.onnx.ShardedDimProto.encode(message.sharded_dim[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a ShardingSpecProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.ShardingSpecProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.ShardingSpecProto} ShardingSpecProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ShardingSpecProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.ShardingSpecProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.tensor_name = reader.string();
                        break;
                    }
                case 2: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.device = pushExact(message.device, readInt64(reader));
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.device = pushExact(message.device, readInt64(reader));
                        break;
                    }
                case 3: {
                        message.index_to_device_group_map = pushExact(message.index_to_device_group_map, $root.onnx.IntIntListEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 4: {
                        message.sharded_dim = pushExact(message.sharded_dim, $root.onnx.ShardedDimProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return ShardingSpecProto;
    })();

    onnx.ShardedDimProto = (function() {

        /**
         * Properties of a ShardedDimProto.
         * @memberof onnx
         * @interface IShardedDimProto
         * @property {Long|null} [axis] ShardedDimProto axis
         * @property {Array.<onnx.ISimpleShardedDimProto>|null} [simple_sharding] ShardedDimProto simple_sharding
         */

        /**
         * Constructs a new ShardedDimProto.
         * @memberof onnx
         * @classdesc Represents a ShardedDimProto.
         * @implements IShardedDimProto
         * @constructor
         * @param {onnx.IShardedDimProto=} [properties] Properties to set
         */
        function ShardedDimProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.simple_sharding = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * ShardedDimProto axis.
         * @member {Long} axis
         * @memberof onnx.ShardedDimProto
         * @instance
         */
        ShardedDimProto.prototype.axis = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * ShardedDimProto simple_sharding.
         * @member {Array.<onnx.ISimpleShardedDimProto>} simple_sharding
         * @memberof onnx.ShardedDimProto
         * @instance
         */
        ShardedDimProto.prototype.simple_sharding = $util.emptyArray;

        /**
         * Creates a new ShardedDimProto instance using the specified properties.
         * @function create
         * @memberof onnx.ShardedDimProto
         * @static
         * @param {onnx.IShardedDimProto=} [properties] Properties to set
         * @returns {onnx.ShardedDimProto} ShardedDimProto instance
         */
        ShardedDimProto.create = function create(properties) {
            return new ShardedDimProto(properties);
        };

        /**
         * Encodes the specified ShardedDimProto message. Does not implicitly {@link onnx.ShardedDimProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.ShardedDimProto
         * @static
         * @param {onnx.IShardedDimProto} message ShardedDimProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ShardedDimProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.axis != null && Object.hasOwnProperty.call(message, "axis"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.axis);
            if (message.simple_sharding != null && message.simple_sharding.length)
                for (let i = 0; i < message.simple_sharding.length; ++i)
                    $root.onnx.SimpleShardedDimProto.encode(message.simple_sharding[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a ShardedDimProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.ShardedDimProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.ShardedDimProto} ShardedDimProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ShardedDimProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.ShardedDimProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.axis = readInt64(reader);
                        break;
                    }
                case 2: {
                        message.simple_sharding = pushExact(message.simple_sharding, $root.onnx.SimpleShardedDimProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return ShardedDimProto;
    })();

    onnx.SimpleShardedDimProto = (function() {

        /**
         * Properties of a SimpleShardedDimProto.
         * @memberof onnx
         * @interface ISimpleShardedDimProto
         * @property {Long|null} [dim_value] SimpleShardedDimProto dim_value
         * @property {string|null} [dim_param] SimpleShardedDimProto dim_param
         * @property {Long|null} [num_shards] SimpleShardedDimProto num_shards
         */

        /**
         * Constructs a new SimpleShardedDimProto.
         * @memberof onnx
         * @classdesc Represents a SimpleShardedDimProto.
         * @implements ISimpleShardedDimProto
         * @constructor
         * @param {onnx.ISimpleShardedDimProto=} [properties] Properties to set
         */
        function SimpleShardedDimProto(properties) {
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * SimpleShardedDimProto dim_value.
         * @member {Long|null|undefined} dim_value
         * @memberof onnx.SimpleShardedDimProto
         * @instance
         */
        SimpleShardedDimProto.prototype.dim_value = null;

        /**
         * SimpleShardedDimProto dim_param.
         * @member {string|null|undefined} dim_param
         * @memberof onnx.SimpleShardedDimProto
         * @instance
         */
        SimpleShardedDimProto.prototype.dim_param = null;

        /**
         * SimpleShardedDimProto num_shards.
         * @member {Long} num_shards
         * @memberof onnx.SimpleShardedDimProto
         * @instance
         */
        SimpleShardedDimProto.prototype.num_shards = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        // OneOf field names bound to virtual getters and setters
        let $oneOfFields;

        /**
         * SimpleShardedDimProto dim.
         * @member {"dim_value"|"dim_param"|undefined} dim
         * @memberof onnx.SimpleShardedDimProto
         * @instance
         */
        Object.defineProperty(SimpleShardedDimProto.prototype, "dim", {
            get: $util.oneOfGetter($oneOfFields = ["dim_value", "dim_param"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Creates a new SimpleShardedDimProto instance using the specified properties.
         * @function create
         * @memberof onnx.SimpleShardedDimProto
         * @static
         * @param {onnx.ISimpleShardedDimProto=} [properties] Properties to set
         * @returns {onnx.SimpleShardedDimProto} SimpleShardedDimProto instance
         */
        SimpleShardedDimProto.create = function create(properties) {
            return new SimpleShardedDimProto(properties);
        };

        /**
         * Encodes the specified SimpleShardedDimProto message. Does not implicitly {@link onnx.SimpleShardedDimProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.SimpleShardedDimProto
         * @static
         * @param {onnx.ISimpleShardedDimProto} message SimpleShardedDimProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        SimpleShardedDimProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.dim_value != null && Object.hasOwnProperty.call(message, "dim_value"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.dim_value);
            if (message.dim_param != null && Object.hasOwnProperty.call(message, "dim_param"))
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.dim_param);
            if (message.num_shards != null && Object.hasOwnProperty.call(message, "num_shards"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.num_shards);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a SimpleShardedDimProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.SimpleShardedDimProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.SimpleShardedDimProto} SimpleShardedDimProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        SimpleShardedDimProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.SimpleShardedDimProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.dim_value = readInt64(reader);
                        break;
                    }
                case 2: {
                        message.dim_param = reader.string();
                        break;
                    }
                case 3: {
                        message.num_shards = readInt64(reader);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return SimpleShardedDimProto;
    })();

    onnx.TrainingInfoProto = (function() {

        /**
         * Properties of a TrainingInfoProto.
         * @memberof onnx
         * @interface ITrainingInfoProto
         * @property {onnx.IGraphProto|null} [initialization] TrainingInfoProto initialization
         * @property {onnx.IGraphProto|null} [algorithm] TrainingInfoProto algorithm
         * @property {Array.<onnx.IStringStringEntryProto>|null} [initialization_binding] TrainingInfoProto initialization_binding
         * @property {Array.<onnx.IStringStringEntryProto>|null} [update_binding] TrainingInfoProto update_binding
         */

        /**
         * Constructs a new TrainingInfoProto.
         * @memberof onnx
         * @classdesc Represents a TrainingInfoProto.
         * @implements ITrainingInfoProto
         * @constructor
         * @param {onnx.ITrainingInfoProto=} [properties] Properties to set
         */
        function TrainingInfoProto(properties) {
            this.initialization_binding = [];
            this.update_binding = [];
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TrainingInfoProto initialization.
         * @member {onnx.IGraphProto|null|undefined} initialization
         * @memberof onnx.TrainingInfoProto
         * @instance
         */
        TrainingInfoProto.prototype.initialization = null;

        /**
         * TrainingInfoProto algorithm.
         * @member {onnx.IGraphProto|null|undefined} algorithm
         * @memberof onnx.TrainingInfoProto
         * @instance
         */
        TrainingInfoProto.prototype.algorithm = null;

        /**
         * TrainingInfoProto initialization_binding.
         * @member {Array.<onnx.IStringStringEntryProto>} initialization_binding
         * @memberof onnx.TrainingInfoProto
         * @instance
         */
        TrainingInfoProto.prototype.initialization_binding = $util.emptyArray;

        /**
         * TrainingInfoProto update_binding.
         * @member {Array.<onnx.IStringStringEntryProto>} update_binding
         * @memberof onnx.TrainingInfoProto
         * @instance
         */
        TrainingInfoProto.prototype.update_binding = $util.emptyArray;

        /**
         * Creates a new TrainingInfoProto instance using the specified properties.
         * @function create
         * @memberof onnx.TrainingInfoProto
         * @static
         * @param {onnx.ITrainingInfoProto=} [properties] Properties to set
         * @returns {onnx.TrainingInfoProto} TrainingInfoProto instance
         */
        TrainingInfoProto.create = function create(properties) {
            return new TrainingInfoProto(properties);
        };

        /**
         * Encodes the specified TrainingInfoProto message. Does not implicitly {@link onnx.TrainingInfoProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.TrainingInfoProto
         * @static
         * @param {onnx.ITrainingInfoProto} message TrainingInfoProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TrainingInfoProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.initialization != null && Object.hasOwnProperty.call(message, "initialization"))
                $root.onnx.GraphProto.encode(message.initialization, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.algorithm != null && Object.hasOwnProperty.call(message, "algorithm"))
                $root.onnx.GraphProto.encode(message.algorithm, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.initialization_binding != null && message.initialization_binding.length)
                for (let i = 0; i < message.initialization_binding.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.initialization_binding[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            if (message.update_binding != null && message.update_binding.length)
                for (let i = 0; i < message.update_binding.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.update_binding[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a TrainingInfoProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.TrainingInfoProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.TrainingInfoProto} TrainingInfoProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TrainingInfoProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.TrainingInfoProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.initialization = $root.onnx.GraphProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.algorithm = $root.onnx.GraphProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        message.initialization_binding = pushExact(message.initialization_binding, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 4: {
                        message.update_binding = pushExact(message.update_binding, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return TrainingInfoProto;
    })();

    onnx.ModelProto = (function() {

        /**
         * Properties of a ModelProto.
         * @memberof onnx
         * @interface IModelProto
         * @property {Long|null} [ir_version] ModelProto ir_version
         * @property {Array.<onnx.IOperatorSetIdProto>|null} [opset_import] ModelProto opset_import
         * @property {string|null} [producer_name] ModelProto producer_name
         * @property {string|null} [producer_version] ModelProto producer_version
         * @property {string|null} [domain] ModelProto domain
         * @property {Long|null} [model_version] ModelProto model_version
         * @property {string|null} [doc_string] ModelProto doc_string
         * @property {onnx.IGraphProto|null} [graph] ModelProto graph
         * @property {Array.<onnx.IStringStringEntryProto>|null} [metadata_props] ModelProto metadata_props
         * @property {Array.<onnx.ITrainingInfoProto>|null} [training_info] ModelProto training_info
         * @property {Array.<onnx.IFunctionProto>|null} [functions] ModelProto functions
         * @property {Array.<onnx.IDeviceConfigurationProto>|null} [configuration] ModelProto configuration
         */

        /**
         * Constructs a new ModelProto.
         * @memberof onnx
         * @classdesc Represents a ModelProto.
         * @implements IModelProto
         * @constructor
         * @param {onnx.IModelProto=} [properties] Properties to set
         */
        function ModelProto(properties) {
            this.opset_import = [];
            this.metadata_props = [];
            this.training_info = [];
            this.functions = [];
            this.configuration = [];
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * ModelProto ir_version.
         * @member {Long} ir_version
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.ir_version = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * ModelProto opset_import.
         * @member {Array.<onnx.IOperatorSetIdProto>} opset_import
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.opset_import = $util.emptyArray;

        /**
         * ModelProto producer_name.
         * @member {string} producer_name
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.producer_name = "";

        /**
         * ModelProto producer_version.
         * @member {string} producer_version
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.producer_version = "";

        /**
         * ModelProto domain.
         * @member {string} domain
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.domain = "";

        /**
         * ModelProto model_version.
         * @member {Long} model_version
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.model_version = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * ModelProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.doc_string = "";

        /**
         * ModelProto graph.
         * @member {onnx.IGraphProto|null|undefined} graph
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.graph = null;

        /**
         * ModelProto metadata_props.
         * @member {Array.<onnx.IStringStringEntryProto>} metadata_props
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.metadata_props = $util.emptyArray;

        /**
         * ModelProto training_info.
         * @member {Array.<onnx.ITrainingInfoProto>} training_info
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.training_info = $util.emptyArray;

        /**
         * ModelProto functions.
         * @member {Array.<onnx.IFunctionProto>} functions
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.functions = $util.emptyArray;

        /**
         * ModelProto configuration.
         * @member {Array.<onnx.IDeviceConfigurationProto>} configuration
         * @memberof onnx.ModelProto
         * @instance
         */
        ModelProto.prototype.configuration = $util.emptyArray;

        /**
         * Creates a new ModelProto instance using the specified properties.
         * @function create
         * @memberof onnx.ModelProto
         * @static
         * @param {onnx.IModelProto=} [properties] Properties to set
         * @returns {onnx.ModelProto} ModelProto instance
         */
        ModelProto.create = function create(properties) {
            return new ModelProto(properties);
        };

        /**
         * Encodes the specified ModelProto message. Does not implicitly {@link onnx.ModelProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.ModelProto
         * @static
         * @param {onnx.IModelProto} message ModelProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ModelProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.ir_version != null && Object.hasOwnProperty.call(message, "ir_version"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.ir_version);
            if (message.producer_name != null && Object.hasOwnProperty.call(message, "producer_name"))
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.producer_name);
            if (message.producer_version != null && Object.hasOwnProperty.call(message, "producer_version"))
                writer.uint32(/* id 3, wireType 2 =*/26).string(message.producer_version);
            if (message.domain != null && Object.hasOwnProperty.call(message, "domain"))
                writer.uint32(/* id 4, wireType 2 =*/34).string(message.domain);
            if (message.model_version != null && Object.hasOwnProperty.call(message, "model_version"))
                writer.uint32(/* id 5, wireType 0 =*/40).int64(message.model_version);
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 6, wireType 2 =*/50).string(message.doc_string);
            if (message.graph != null && Object.hasOwnProperty.call(message, "graph"))
                $root.onnx.GraphProto.encode(message.graph, writer.uint32(/* id 7, wireType 2 =*/58).fork(), q + 1).ldelim();
            if (message.opset_import != null && message.opset_import.length)
                for (let i = 0; i < message.opset_import.length; ++i)
                    $root.onnx.OperatorSetIdProto.encode(message.opset_import[i], writer.uint32(/* id 8, wireType 2 =*/66).fork(), q + 1).ldelim();
            if (message.metadata_props != null && message.metadata_props.length)
                for (let i = 0; i < message.metadata_props.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.metadata_props[i], writer.uint32(/* id 14, wireType 2 =*/114).fork(), q + 1).ldelim();
            if (message.training_info != null && message.training_info.length)
                for (let i = 0; i < message.training_info.length; ++i)
                    $root.onnx.TrainingInfoProto.encode(message.training_info[i], writer.uint32(/* id 20, wireType 2 =*/162).fork(), q + 1).ldelim();
            if (message.functions != null && message.functions.length)
                for (let i = 0; i < message.functions.length; ++i)
                    $root.onnx.FunctionProto.encode(message.functions[i], writer.uint32(/* id 25, wireType 2 =*/202).fork(), q + 1).ldelim();
            if (message.configuration != null && message.configuration.length)
                for (let i = 0; i < message.configuration.length; ++i)
                    $root.onnx.DeviceConfigurationProto.encode(message.configuration[i], writer.uint32(/* id 26, wireType 2 =*/210).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a ModelProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.ModelProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.ModelProto} ModelProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ModelProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.ModelProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.ir_version = readInt64(reader);
                        break;
                    }
                case 8: {
                        message.opset_import = pushExact(message.opset_import, $root.onnx.OperatorSetIdProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 2: {
                        message.producer_name = reader.string();
                        break;
                    }
                case 3: {
                        message.producer_version = reader.string();
                        break;
                    }
                case 4: {
                        message.domain = reader.string();
                        break;
                    }
                case 5: {
                        message.model_version = readInt64(reader);
                        break;
                    }
                case 6: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 7: {
                        message.graph = $root.onnx.GraphProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 14: {
                        message.metadata_props = pushExact(message.metadata_props, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 20: {
                        message.training_info = pushExact(message.training_info, $root.onnx.TrainingInfoProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 25: {
                        message.functions = pushExact(message.functions, $root.onnx.FunctionProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 26: {
                        message.configuration = pushExact(message.configuration, $root.onnx.DeviceConfigurationProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return ModelProto;
    })();

    onnx.DeviceConfigurationProto = (function() {

        /**
         * Properties of a DeviceConfigurationProto.
         * @memberof onnx
         * @interface IDeviceConfigurationProto
         * @property {string|null} [name] DeviceConfigurationProto name
         * @property {number|null} [num_devices] DeviceConfigurationProto num_devices
         * @property {Array.<string>|null} [device] DeviceConfigurationProto device
         */

        /**
         * Constructs a new DeviceConfigurationProto.
         * @memberof onnx
         * @classdesc Represents a DeviceConfigurationProto.
         * @implements IDeviceConfigurationProto
         * @constructor
         * @param {onnx.IDeviceConfigurationProto=} [properties] Properties to set
         */
        function DeviceConfigurationProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.device = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * DeviceConfigurationProto name.
         * @member {string} name
         * @memberof onnx.DeviceConfigurationProto
         * @instance
         */
        DeviceConfigurationProto.prototype.name = "";

        /**
         * DeviceConfigurationProto num_devices.
         * @member {number} num_devices
         * @memberof onnx.DeviceConfigurationProto
         * @instance
         */
        DeviceConfigurationProto.prototype.num_devices = 0;

        /**
         * DeviceConfigurationProto device.
         * @member {Array.<string>} device
         * @memberof onnx.DeviceConfigurationProto
         * @instance
         */
        DeviceConfigurationProto.prototype.device = $util.emptyArray;

        /**
         * Creates a new DeviceConfigurationProto instance using the specified properties.
         * @function create
         * @memberof onnx.DeviceConfigurationProto
         * @static
         * @param {onnx.IDeviceConfigurationProto=} [properties] Properties to set
         * @returns {onnx.DeviceConfigurationProto} DeviceConfigurationProto instance
         */
        DeviceConfigurationProto.create = function create(properties) {
            return new DeviceConfigurationProto(properties);
        };

        /**
         * Encodes the specified DeviceConfigurationProto message. Does not implicitly {@link onnx.DeviceConfigurationProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.DeviceConfigurationProto
         * @static
         * @param {onnx.IDeviceConfigurationProto} message DeviceConfigurationProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        DeviceConfigurationProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
            if (message.num_devices != null && Object.hasOwnProperty.call(message, "num_devices"))
                writer.uint32(/* id 2, wireType 0 =*/16).int32(message.num_devices);
            if (message.device != null && message.device.length)
                for (let i = 0; i < message.device.length; ++i)
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.device[i]);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a DeviceConfigurationProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.DeviceConfigurationProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.DeviceConfigurationProto} DeviceConfigurationProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        DeviceConfigurationProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.DeviceConfigurationProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.name = reader.string();
                        break;
                    }
                case 2: {
                        message.num_devices = reader.int32();
                        break;
                    }
                case 3: {
                        message.device = pushExact(message.device, reader.string());
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return DeviceConfigurationProto;
    })();

    onnx.StringStringEntryProto = (function() {

        /**
         * Properties of a StringStringEntryProto.
         * @memberof onnx
         * @interface IStringStringEntryProto
         * @property {string|null} [key] StringStringEntryProto key
         * @property {string|null} [value] StringStringEntryProto value
         */

        /**
         * Constructs a new StringStringEntryProto.
         * @memberof onnx
         * @classdesc Represents a StringStringEntryProto.
         * @implements IStringStringEntryProto
         * @constructor
         * @param {onnx.IStringStringEntryProto=} [properties] Properties to set
         */
        function StringStringEntryProto(properties) {
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * StringStringEntryProto key.
         * @member {string} key
         * @memberof onnx.StringStringEntryProto
         * @instance
         */
        StringStringEntryProto.prototype.key = "";

        /**
         * StringStringEntryProto value.
         * @member {string} value
         * @memberof onnx.StringStringEntryProto
         * @instance
         */
        StringStringEntryProto.prototype.value = "";

        /**
         * Creates a new StringStringEntryProto instance using the specified properties.
         * @function create
         * @memberof onnx.StringStringEntryProto
         * @static
         * @param {onnx.IStringStringEntryProto=} [properties] Properties to set
         * @returns {onnx.StringStringEntryProto} StringStringEntryProto instance
         */
        StringStringEntryProto.create = function create(properties) {
            return new StringStringEntryProto(properties);
        };

        /**
         * Encodes the specified StringStringEntryProto message. Does not implicitly {@link onnx.StringStringEntryProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.StringStringEntryProto
         * @static
         * @param {onnx.IStringStringEntryProto} message StringStringEntryProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        StringStringEntryProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.key);
            if (message.value != null && Object.hasOwnProperty.call(message, "value"))
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.value);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a StringStringEntryProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.StringStringEntryProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.StringStringEntryProto} StringStringEntryProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        StringStringEntryProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.StringStringEntryProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = reader.string();
                        break;
                    }
                case 2: {
                        message.value = reader.string();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return StringStringEntryProto;
    })();

    onnx.TensorAnnotation = (function() {

        /**
         * Properties of a TensorAnnotation.
         * @memberof onnx
         * @interface ITensorAnnotation
         * @property {string|null} [tensor_name] TensorAnnotation tensor_name
         * @property {Array.<onnx.IStringStringEntryProto>|null} [quant_parameter_tensor_names] TensorAnnotation quant_parameter_tensor_names
         */

        /**
         * Constructs a new TensorAnnotation.
         * @memberof onnx
         * @classdesc Represents a TensorAnnotation.
         * @implements ITensorAnnotation
         * @constructor
         * @param {onnx.ITensorAnnotation=} [properties] Properties to set
         */
        function TensorAnnotation(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.quant_parameter_tensor_names = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TensorAnnotation tensor_name.
         * @member {string} tensor_name
         * @memberof onnx.TensorAnnotation
         * @instance
         */
        TensorAnnotation.prototype.tensor_name = "";

        /**
         * TensorAnnotation quant_parameter_tensor_names.
         * @member {Array.<onnx.IStringStringEntryProto>} quant_parameter_tensor_names
         * @memberof onnx.TensorAnnotation
         * @instance
         */
        TensorAnnotation.prototype.quant_parameter_tensor_names = $util.emptyArray;

        /**
         * Creates a new TensorAnnotation instance using the specified properties.
         * @function create
         * @memberof onnx.TensorAnnotation
         * @static
         * @param {onnx.ITensorAnnotation=} [properties] Properties to set
         * @returns {onnx.TensorAnnotation} TensorAnnotation instance
         */
        TensorAnnotation.create = function create(properties) {
            return new TensorAnnotation(properties);
        };

        /**
         * Encodes the specified TensorAnnotation message. Does not implicitly {@link onnx.TensorAnnotation.verify|verify} messages.
         * @function encode
         * @memberof onnx.TensorAnnotation
         * @static
         * @param {onnx.ITensorAnnotation} message TensorAnnotation message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TensorAnnotation.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.tensor_name != null && Object.hasOwnProperty.call(message, "tensor_name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.tensor_name);
            if (message.quant_parameter_tensor_names != null && message.quant_parameter_tensor_names.length)
                for (let i = 0; i < message.quant_parameter_tensor_names.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.quant_parameter_tensor_names[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a TensorAnnotation message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.TensorAnnotation
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.TensorAnnotation} TensorAnnotation
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TensorAnnotation.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.TensorAnnotation($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.tensor_name = reader.string();
                        break;
                    }
                case 2: {
                        message.quant_parameter_tensor_names = pushExact(message.quant_parameter_tensor_names, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return TensorAnnotation;
    })();

    onnx.GraphProto = (function() {

        /**
         * Properties of a GraphProto.
         * @memberof onnx
         * @interface IGraphProto
         * @property {Array.<onnx.INodeProto>|null} [node] GraphProto node
         * @property {string|null} [name] GraphProto name
         * @property {Array.<onnx.ITensorProto>|null} [initializer] GraphProto initializer
         * @property {Array.<onnx.ISparseTensorProto>|null} [sparse_initializer] GraphProto sparse_initializer
         * @property {string|null} [doc_string] GraphProto doc_string
         * @property {Array.<onnx.IValueInfoProto>|null} [input] GraphProto input
         * @property {Array.<onnx.IValueInfoProto>|null} [output] GraphProto output
         * @property {Array.<onnx.IValueInfoProto>|null} [value_info] GraphProto value_info
         * @property {Array.<onnx.ITensorAnnotation>|null} [quantization_annotation] GraphProto quantization_annotation
         * @property {Array.<onnx.IStringStringEntryProto>|null} [metadata_props] GraphProto metadata_props
         */

        /**
         * Constructs a new GraphProto.
         * @memberof onnx
         * @classdesc Represents a GraphProto.
         * @implements IGraphProto
         * @constructor
         * @param {onnx.IGraphProto=} [properties] Properties to set
         */
        function GraphProto(properties) {
            this.node = [];
            this.initializer = [];
            this.sparse_initializer = [];
            this.input = [];
            this.output = [];
            this.value_info = [];
            this.quantization_annotation = [];
            this.metadata_props = [];
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * GraphProto node.
         * @member {Array.<onnx.INodeProto>} node
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.node = $util.emptyArray;

        /**
         * GraphProto name.
         * @member {string} name
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.name = "";

        /**
         * GraphProto initializer.
         * @member {Array.<onnx.ITensorProto>} initializer
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.initializer = $util.emptyArray;

        /**
         * GraphProto sparse_initializer.
         * @member {Array.<onnx.ISparseTensorProto>} sparse_initializer
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.sparse_initializer = $util.emptyArray;

        /**
         * GraphProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.doc_string = "";

        /**
         * GraphProto input.
         * @member {Array.<onnx.IValueInfoProto>} input
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.input = $util.emptyArray;

        /**
         * GraphProto output.
         * @member {Array.<onnx.IValueInfoProto>} output
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.output = $util.emptyArray;

        /**
         * GraphProto value_info.
         * @member {Array.<onnx.IValueInfoProto>} value_info
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.value_info = $util.emptyArray;

        /**
         * GraphProto quantization_annotation.
         * @member {Array.<onnx.ITensorAnnotation>} quantization_annotation
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.quantization_annotation = $util.emptyArray;

        /**
         * GraphProto metadata_props.
         * @member {Array.<onnx.IStringStringEntryProto>} metadata_props
         * @memberof onnx.GraphProto
         * @instance
         */
        GraphProto.prototype.metadata_props = $util.emptyArray;

        /**
         * Creates a new GraphProto instance using the specified properties.
         * @function create
         * @memberof onnx.GraphProto
         * @static
         * @param {onnx.IGraphProto=} [properties] Properties to set
         * @returns {onnx.GraphProto} GraphProto instance
         */
        GraphProto.create = function create(properties) {
            return new GraphProto(properties);
        };

        /**
         * Encodes the specified GraphProto message. Does not implicitly {@link onnx.GraphProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.GraphProto
         * @static
         * @param {onnx.IGraphProto} message GraphProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        GraphProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.node != null && message.node.length)
                for (let i = 0; i < message.node.length; ++i)
                    $root.onnx.NodeProto.encode(message.node[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.name);
            if (message.initializer != null && message.initializer.length)
                for (let i = 0; i < message.initializer.length; ++i)
                    $root.onnx.TensorProto.encode(message.initializer[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), q + 1).ldelim();
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 10, wireType 2 =*/82).string(message.doc_string);
            if (message.input != null && message.input.length)
                for (let i = 0; i < message.input.length; ++i)
                    $root.onnx.ValueInfoProto.encode(message.input[i], writer.uint32(/* id 11, wireType 2 =*/90).fork(), q + 1).ldelim();
            if (message.output != null && message.output.length)
                for (let i = 0; i < message.output.length; ++i)
                    $root.onnx.ValueInfoProto.encode(message.output[i], writer.uint32(/* id 12, wireType 2 =*/98).fork(), q + 1).ldelim();
            if (message.value_info != null && message.value_info.length)
                for (let i = 0; i < message.value_info.length; ++i)
                    $root.onnx.ValueInfoProto.encode(message.value_info[i], writer.uint32(/* id 13, wireType 2 =*/106).fork(), q + 1).ldelim();
            if (message.quantization_annotation != null && message.quantization_annotation.length)
                for (let i = 0; i < message.quantization_annotation.length; ++i)
                    $root.onnx.TensorAnnotation.encode(message.quantization_annotation[i], writer.uint32(/* id 14, wireType 2 =*/114).fork(), q + 1).ldelim();
            if (message.sparse_initializer != null && message.sparse_initializer.length)
                for (let i = 0; i < message.sparse_initializer.length; ++i)
                    $root.onnx.SparseTensorProto.encode(message.sparse_initializer[i], writer.uint32(/* id 15, wireType 2 =*/122).fork(), q + 1).ldelim();
            if (message.metadata_props != null && message.metadata_props.length)
                for (let i = 0; i < message.metadata_props.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.metadata_props[i], writer.uint32(/* id 16, wireType 2 =*/130).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a GraphProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.GraphProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.GraphProto} GraphProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        GraphProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.GraphProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.node = pushExact(message.node, $root.onnx.NodeProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 2: {
                        message.name = reader.string();
                        break;
                    }
                case 5: {
                        message.initializer = pushExact(message.initializer, $root.onnx.TensorProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 15: {
                        message.sparse_initializer = pushExact(message.sparse_initializer, $root.onnx.SparseTensorProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 10: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 11: {
                        message.input = pushExact(message.input, $root.onnx.ValueInfoProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 12: {
                        message.output = pushExact(message.output, $root.onnx.ValueInfoProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 13: {
                        message.value_info = pushExact(message.value_info, $root.onnx.ValueInfoProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 14: {
                        message.quantization_annotation = pushExact(message.quantization_annotation, $root.onnx.TensorAnnotation.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 16: {
                        message.metadata_props = pushExact(message.metadata_props, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return GraphProto;
    })();

    onnx.TensorProto = (function() {

        /**
         * Properties of a TensorProto.
         * @memberof onnx
         * @interface ITensorProto
         * @property {Array.<Long>|null} [dims] TensorProto dims
         * @property {number|null} [data_type] TensorProto data_type
         * @property {onnx.TensorProto.ISegment|null} [segment] TensorProto segment
         * @property {Array.<number>|null} [float_data] TensorProto float_data
         * @property {Array.<number>|null} [int32_data] TensorProto int32_data
         * @property {Array.<Uint8Array>|null} [string_data] TensorProto string_data
         * @property {Array.<Long>|null} [int64_data] TensorProto int64_data
         * @property {string|null} [name] TensorProto name
         * @property {string|null} [doc_string] TensorProto doc_string
         * @property {Uint8Array|null} [raw_data] TensorProto raw_data
         * @property {Array.<onnx.IStringStringEntryProto>|null} [external_data] TensorProto external_data
         * @property {onnx.TensorProto.DataLocation|null} [data_location] TensorProto data_location
         * @property {Array.<number>|null} [double_data] TensorProto double_data
         * @property {Array.<Long>|null} [uint64_data] TensorProto uint64_data
         * @property {Array.<onnx.IStringStringEntryProto>|null} [metadata_props] TensorProto metadata_props
         */

        /**
         * Constructs a new TensorProto.
         * @memberof onnx
         * @classdesc Represents a TensorProto.
         * @implements ITensorProto
         * @constructor
         * @param {onnx.ITensorProto=} [properties] Properties to set
         */
        function TensorProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.dims = [];
                this.float_data = [];
                this.int32_data = [];
                this.string_data = [];
                this.int64_data = [];
                this.external_data = [];
                this.double_data = [];
                this.uint64_data = [];
                this.metadata_props = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TensorProto dims.
         * @member {Array.<Long>} dims
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.dims = $util.emptyArray;

        /**
         * TensorProto data_type.
         * @member {number} data_type
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.data_type = 0;

        /**
         * TensorProto segment.
         * @member {onnx.TensorProto.ISegment|null|undefined} segment
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.segment = null;

        /**
         * TensorProto float_data.
         * @member {Array.<number>} float_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.float_data = $util.emptyArray;

        /**
         * TensorProto int32_data.
         * @member {Array.<number>} int32_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.int32_data = $util.emptyArray;

        /**
         * TensorProto string_data.
         * @member {Array.<Uint8Array>} string_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.string_data = $util.emptyArray;

        /**
         * TensorProto int64_data.
         * @member {Array.<Long>} int64_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.int64_data = $util.emptyArray;

        /**
         * TensorProto name.
         * @member {string} name
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.name = "";

        /**
         * TensorProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.doc_string = "";

        /**
         * TensorProto raw_data.
         * @member {Uint8Array} raw_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.raw_data = $util.newBuffer([]);

        /**
         * TensorProto external_data.
         * @member {Array.<onnx.IStringStringEntryProto>} external_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.external_data = $util.emptyArray;

        /**
         * TensorProto data_location.
         * @member {onnx.TensorProto.DataLocation} data_location
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.data_location = 0;

        /**
         * TensorProto double_data.
         * @member {Array.<number>} double_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.double_data = $util.emptyArray;

        /**
         * TensorProto uint64_data.
         * @member {Array.<Long>} uint64_data
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.uint64_data = $util.emptyArray;

        /**
         * TensorProto metadata_props.
         * @member {Array.<onnx.IStringStringEntryProto>} metadata_props
         * @memberof onnx.TensorProto
         * @instance
         */
        TensorProto.prototype.metadata_props = $util.emptyArray;

        /**
         * Creates a new TensorProto instance using the specified properties.
         * @function create
         * @memberof onnx.TensorProto
         * @static
         * @param {onnx.ITensorProto=} [properties] Properties to set
         * @returns {onnx.TensorProto} TensorProto instance
         */
        TensorProto.create = function create(properties) {
            return new TensorProto(properties);
        };

        /**
         * Encodes the specified TensorProto message. Does not implicitly {@link onnx.TensorProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.TensorProto
         * @static
         * @param {onnx.ITensorProto} message TensorProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TensorProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.dims != null && message.dims.length)
                for (let i = 0; i < message.dims.length; ++i)
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.dims[i]);
            if (message.data_type != null && Object.hasOwnProperty.call(message, "data_type"))
                writer.uint32(/* id 2, wireType 0 =*/16).int32(message.data_type);
            if (message.segment != null && Object.hasOwnProperty.call(message, "segment"))
                $root.onnx.TensorProto.Segment.encode(message.segment, writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            if (message.float_data != null && message.float_data.length) {
                writer.uint32(/* id 4, wireType 2 =*/34).fork();
                for (let i = 0; i < message.float_data.length; ++i)
                    writer.float(message.float_data[i]);
                writer.ldelim();
            }
            if (message.int32_data != null && message.int32_data.length) {
                writer.uint32(/* id 5, wireType 2 =*/42).fork();
                for (let i = 0; i < message.int32_data.length; ++i)
                    writer.int32(message.int32_data[i]);
                writer.ldelim();
            }
            if (message.string_data != null && message.string_data.length)
                for (let i = 0; i < message.string_data.length; ++i)
                    writer.uint32(/* id 6, wireType 2 =*/50).bytes(message.string_data[i]);
            if (message.int64_data != null && message.int64_data.length) {
                writer.uint32(/* id 7, wireType 2 =*/58).fork();
                for (let i = 0; i < message.int64_data.length; ++i)
                    writer.int64(message.int64_data[i]);
                writer.ldelim();
            }
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 8, wireType 2 =*/66).string(message.name);
            if (message.raw_data != null && Object.hasOwnProperty.call(message, "raw_data"))
                writer.uint32(/* id 9, wireType 2 =*/74).bytes(message.raw_data);
            if (message.double_data != null && message.double_data.length) {
                writer.uint32(/* id 10, wireType 2 =*/82).fork();
                for (let i = 0; i < message.double_data.length; ++i)
                    writer.double(message.double_data[i]);
                writer.ldelim();
            }
            if (message.uint64_data != null && message.uint64_data.length) {
                writer.uint32(/* id 11, wireType 2 =*/90).fork();
                for (let i = 0; i < message.uint64_data.length; ++i)
                    writer.uint64(message.uint64_data[i]);
                writer.ldelim();
            }
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 12, wireType 2 =*/98).string(message.doc_string);
            if (message.external_data != null && message.external_data.length)
                for (let i = 0; i < message.external_data.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.external_data[i], writer.uint32(/* id 13, wireType 2 =*/106).fork(), q + 1).ldelim();
            if (message.data_location != null && Object.hasOwnProperty.call(message, "data_location"))
                writer.uint32(/* id 14, wireType 0 =*/112).int32(message.data_location);
            if (message.metadata_props != null && message.metadata_props.length)
                for (let i = 0; i < message.metadata_props.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.metadata_props[i], writer.uint32(/* id 16, wireType 2 =*/130).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a TensorProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.TensorProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.TensorProto} TensorProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TensorProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.TensorProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.dims = pushExact(message.dims, readInt64(reader));
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.dims = pushExact(message.dims, readInt64(reader));
                        break;
                    }
                case 2: {
                        message.data_type = reader.int32();
                        break;
                    }
                case 3: {
                        message.segment = $root.onnx.TensorProto.Segment.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 4: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.float_data = pushExact(message.float_data, reader.float());
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.float_data = pushExact(message.float_data, reader.float());
                        break;
                    }
                case 5: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.int32_data = pushExact(message.int32_data, reader.int32());
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.int32_data = pushExact(message.int32_data, reader.int32());
                        break;
                    }
                case 6: {
                        message.string_data = pushExact(message.string_data, reader.bytes());
                        break;
                    }
                case 7: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.int64_data = pushExact(message.int64_data, readInt64(reader));
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.int64_data = pushExact(message.int64_data, readInt64(reader));
                        break;
                    }
                case 8: {
                        message.name = readName(reader);
                        break;
                    }
                case 12: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 9: {
                        message.raw_data = reader.bytes();
                        break;
                    }
                case 13: {
                        message.external_data = pushExact(message.external_data, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 14: {
                        message.data_location = reader.int32();
                        break;
                    }
                case 10: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.double_data = pushExact(message.double_data, reader.double());
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.double_data = pushExact(message.double_data, reader.double());
                        break;
                    }
                case 11: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.uint64_data = pushExact(message.uint64_data, reader.uint64());
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.uint64_data = pushExact(message.uint64_data, reader.uint64());
                        break;
                    }
                case 16: {
                        message.metadata_props = pushExact(message.metadata_props, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        /**
         * DataType enum.
         * @name onnx.TensorProto.DataType
         * @enum {number}
         * @property {number} UNDEFINED=0 UNDEFINED value
         * @property {number} FLOAT=1 FLOAT value
         * @property {number} UINT8=2 UINT8 value
         * @property {number} INT8=3 INT8 value
         * @property {number} UINT16=4 UINT16 value
         * @property {number} INT16=5 INT16 value
         * @property {number} INT32=6 INT32 value
         * @property {number} INT64=7 INT64 value
         * @property {number} STRING=8 STRING value
         * @property {number} BOOL=9 BOOL value
         * @property {number} FLOAT16=10 FLOAT16 value
         * @property {number} DOUBLE=11 DOUBLE value
         * @property {number} UINT32=12 UINT32 value
         * @property {number} UINT64=13 UINT64 value
         * @property {number} COMPLEX64=14 COMPLEX64 value
         * @property {number} COMPLEX128=15 COMPLEX128 value
         * @property {number} BFLOAT16=16 BFLOAT16 value
         * @property {number} FLOAT8E4M3FN=17 FLOAT8E4M3FN value
         * @property {number} FLOAT8E4M3FNUZ=18 FLOAT8E4M3FNUZ value
         * @property {number} FLOAT8E5M2=19 FLOAT8E5M2 value
         * @property {number} FLOAT8E5M2FNUZ=20 FLOAT8E5M2FNUZ value
         * @property {number} UINT4=21 UINT4 value
         * @property {number} INT4=22 INT4 value
         * @property {number} FLOAT4E2M1=23 FLOAT4E2M1 value
         * @property {number} FLOAT8E8M0=24 FLOAT8E8M0 value
         * @property {number} UINT2=25 UINT2 value
         * @property {number} INT2=26 INT2 value
         */
        TensorProto.DataType = (function() {
            const valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "UNDEFINED"] = 0;
            values[valuesById[1] = "FLOAT"] = 1;
            values[valuesById[2] = "UINT8"] = 2;
            values[valuesById[3] = "INT8"] = 3;
            values[valuesById[4] = "UINT16"] = 4;
            values[valuesById[5] = "INT16"] = 5;
            values[valuesById[6] = "INT32"] = 6;
            values[valuesById[7] = "INT64"] = 7;
            values[valuesById[8] = "STRING"] = 8;
            values[valuesById[9] = "BOOL"] = 9;
            values[valuesById[10] = "FLOAT16"] = 10;
            values[valuesById[11] = "DOUBLE"] = 11;
            values[valuesById[12] = "UINT32"] = 12;
            values[valuesById[13] = "UINT64"] = 13;
            values[valuesById[14] = "COMPLEX64"] = 14;
            values[valuesById[15] = "COMPLEX128"] = 15;
            values[valuesById[16] = "BFLOAT16"] = 16;
            values[valuesById[17] = "FLOAT8E4M3FN"] = 17;
            values[valuesById[18] = "FLOAT8E4M3FNUZ"] = 18;
            values[valuesById[19] = "FLOAT8E5M2"] = 19;
            values[valuesById[20] = "FLOAT8E5M2FNUZ"] = 20;
            values[valuesById[21] = "UINT4"] = 21;
            values[valuesById[22] = "INT4"] = 22;
            values[valuesById[23] = "FLOAT4E2M1"] = 23;
            values[valuesById[24] = "FLOAT8E8M0"] = 24;
            values[valuesById[25] = "UINT2"] = 25;
            values[valuesById[26] = "INT2"] = 26;
            return values;
        })();

        TensorProto.Segment = (function() {

            /**
             * Properties of a Segment.
             * @memberof onnx.TensorProto
             * @interface ISegment
             * @property {Long|null} [begin] Segment begin
             * @property {Long|null} [end] Segment end
             */

            /**
             * Constructs a new Segment.
             * @memberof onnx.TensorProto
             * @classdesc Represents a Segment.
             * @implements ISegment
             * @constructor
             * @param {onnx.TensorProto.ISegment=} [properties] Properties to set
             */
            function Segment(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Segment begin.
             * @member {Long} begin
             * @memberof onnx.TensorProto.Segment
             * @instance
             */
            Segment.prototype.begin = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * Segment end.
             * @member {Long} end
             * @memberof onnx.TensorProto.Segment
             * @instance
             */
            Segment.prototype.end = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * Creates a new Segment instance using the specified properties.
             * @function create
             * @memberof onnx.TensorProto.Segment
             * @static
             * @param {onnx.TensorProto.ISegment=} [properties] Properties to set
             * @returns {onnx.TensorProto.Segment} Segment instance
             */
            Segment.create = function create(properties) {
                return new Segment(properties);
            };

            /**
             * Encodes the specified Segment message. Does not implicitly {@link onnx.TensorProto.Segment.verify|verify} messages.
             * @function encode
             * @memberof onnx.TensorProto.Segment
             * @static
             * @param {onnx.TensorProto.ISegment} message Segment message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Segment.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.begin != null && Object.hasOwnProperty.call(message, "begin"))
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.begin);
                if (message.end != null && Object.hasOwnProperty.call(message, "end"))
                    writer.uint32(/* id 2, wireType 0 =*/16).int64(message.end);
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes a Segment message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TensorProto.Segment
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TensorProto.Segment} Segment
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Segment.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TensorProto.Segment();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.begin = readInt64(reader);
                            break;
                        }
                    case 2: {
                            message.end = readInt64(reader);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Segment;
        })();

        /**
         * DataLocation enum.
         * @name onnx.TensorProto.DataLocation
         * @enum {number}
         * @property {number} DEFAULT=0 DEFAULT value
         * @property {number} EXTERNAL=1 EXTERNAL value
         */
        TensorProto.DataLocation = (function() {
            const valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "DEFAULT"] = 0;
            values[valuesById[1] = "EXTERNAL"] = 1;
            return values;
        })();

        return TensorProto;
    })();

    onnx.SparseTensorProto = (function() {

        /**
         * Properties of a SparseTensorProto.
         * @memberof onnx
         * @interface ISparseTensorProto
         * @property {onnx.ITensorProto|null} [values] SparseTensorProto values
         * @property {onnx.ITensorProto|null} [indices] SparseTensorProto indices
         * @property {Array.<Long>|null} [dims] SparseTensorProto dims
         */

        /**
         * Constructs a new SparseTensorProto.
         * @memberof onnx
         * @classdesc Represents a SparseTensorProto.
         * @implements ISparseTensorProto
         * @constructor
         * @param {onnx.ISparseTensorProto=} [properties] Properties to set
         */
        function SparseTensorProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.dims = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * SparseTensorProto values.
         * @member {onnx.ITensorProto|null|undefined} values
         * @memberof onnx.SparseTensorProto
         * @instance
         */
        SparseTensorProto.prototype.values = null;

        /**
         * SparseTensorProto indices.
         * @member {onnx.ITensorProto|null|undefined} indices
         * @memberof onnx.SparseTensorProto
         * @instance
         */
        SparseTensorProto.prototype.indices = null;

        /**
         * SparseTensorProto dims.
         * @member {Array.<Long>} dims
         * @memberof onnx.SparseTensorProto
         * @instance
         */
        SparseTensorProto.prototype.dims = $util.emptyArray;

        /**
         * Creates a new SparseTensorProto instance using the specified properties.
         * @function create
         * @memberof onnx.SparseTensorProto
         * @static
         * @param {onnx.ISparseTensorProto=} [properties] Properties to set
         * @returns {onnx.SparseTensorProto} SparseTensorProto instance
         */
        SparseTensorProto.create = function create(properties) {
            return new SparseTensorProto(properties);
        };

        /**
         * Encodes the specified SparseTensorProto message. Does not implicitly {@link onnx.SparseTensorProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.SparseTensorProto
         * @static
         * @param {onnx.ISparseTensorProto} message SparseTensorProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        SparseTensorProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.values != null && Object.hasOwnProperty.call(message, "values"))
                $root.onnx.TensorProto.encode(message.values, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.indices != null && Object.hasOwnProperty.call(message, "indices"))
                $root.onnx.TensorProto.encode(message.indices, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.dims != null && message.dims.length)
                for (let i = 0; i < message.dims.length; ++i)
                    writer.uint32(/* id 3, wireType 0 =*/24).int64(message.dims[i]);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a SparseTensorProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.SparseTensorProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.SparseTensorProto} SparseTensorProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        SparseTensorProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.SparseTensorProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.values = $root.onnx.TensorProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.indices = $root.onnx.TensorProto.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        if ((tag & 7) === 2) {
                            let end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.dims = pushExact(message.dims, readInt64(reader));
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.dims = pushExact(message.dims, readInt64(reader));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return SparseTensorProto;
    })();

    onnx.TensorShapeProto = (function() {

        /**
         * Properties of a TensorShapeProto.
         * @memberof onnx
         * @interface ITensorShapeProto
         * @property {Array.<onnx.TensorShapeProto.IDimension>|null} [dim] TensorShapeProto dim
         */

        /**
         * Constructs a new TensorShapeProto.
         * @memberof onnx
         * @classdesc Represents a TensorShapeProto.
         * @implements ITensorShapeProto
         * @constructor
         * @param {onnx.ITensorShapeProto=} [properties] Properties to set
         */
        function TensorShapeProto(properties) {
            if (properties !== SHARED_EMPTY_FIELDS) {
                this.dim = [];
            }
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TensorShapeProto dim.
         * @member {Array.<onnx.TensorShapeProto.IDimension>} dim
         * @memberof onnx.TensorShapeProto
         * @instance
         */
        TensorShapeProto.prototype.dim = $util.emptyArray;

        /**
         * Creates a new TensorShapeProto instance using the specified properties.
         * @function create
         * @memberof onnx.TensorShapeProto
         * @static
         * @param {onnx.ITensorShapeProto=} [properties] Properties to set
         * @returns {onnx.TensorShapeProto} TensorShapeProto instance
         */
        TensorShapeProto.create = function create(properties) {
            return new TensorShapeProto(properties);
        };

        /**
         * Encodes the specified TensorShapeProto message. Does not implicitly {@link onnx.TensorShapeProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.TensorShapeProto
         * @static
         * @param {onnx.ITensorShapeProto} message TensorShapeProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TensorShapeProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.dim != null && message.dim.length)
                for (let i = 0; i < message.dim.length; ++i)
                    $root.onnx.TensorShapeProto.Dimension.encode(message.dim[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a TensorShapeProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.TensorShapeProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.TensorShapeProto} TensorShapeProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TensorShapeProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.TensorShapeProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.dim = pushExact(message.dim, $root.onnx.TensorShapeProto.Dimension.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        TensorShapeProto.Dimension = (function() {

            /**
             * Properties of a Dimension.
             * @memberof onnx.TensorShapeProto
             * @interface IDimension
             * @property {Long|null} [dim_value] Dimension dim_value
             * @property {string|null} [dim_param] Dimension dim_param
             * @property {string|null} [denotation] Dimension denotation
             */

            /**
             * Constructs a new Dimension.
             * @memberof onnx.TensorShapeProto
             * @classdesc Represents a Dimension.
             * @implements IDimension
             * @constructor
             * @param {onnx.TensorShapeProto.IDimension=} [properties] Properties to set
             */
            function Dimension(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Dimension dim_value.
             * @member {Long|null|undefined} dim_value
             * @memberof onnx.TensorShapeProto.Dimension
             * @instance
             */
            Dimension.prototype.dim_value = null;

            /**
             * Dimension dim_param.
             * @member {string|null|undefined} dim_param
             * @memberof onnx.TensorShapeProto.Dimension
             * @instance
             */
            Dimension.prototype.dim_param = null;

            /**
             * Dimension denotation.
             * @member {string} denotation
             * @memberof onnx.TensorShapeProto.Dimension
             * @instance
             */
            Dimension.prototype.denotation = "";

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            /**
             * Dimension value.
             * @member {"dim_value"|"dim_param"|undefined} value
             * @memberof onnx.TensorShapeProto.Dimension
             * @instance
             */
            Object.defineProperty(Dimension.prototype, "value", {
                get: $util.oneOfGetter($oneOfFields = ["dim_value", "dim_param"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new Dimension instance using the specified properties.
             * @function create
             * @memberof onnx.TensorShapeProto.Dimension
             * @static
             * @param {onnx.TensorShapeProto.IDimension=} [properties] Properties to set
             * @returns {onnx.TensorShapeProto.Dimension} Dimension instance
             */
            Dimension.create = function create(properties) {
                return new Dimension(properties);
            };

            /**
             * Encodes the specified Dimension message. Does not implicitly {@link onnx.TensorShapeProto.Dimension.verify|verify} messages.
             * @function encode
             * @memberof onnx.TensorShapeProto.Dimension
             * @static
             * @param {onnx.TensorShapeProto.IDimension} message Dimension message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Dimension.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.dim_value != null && Object.hasOwnProperty.call(message, "dim_value"))
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.dim_value);
                if (message.dim_param != null && Object.hasOwnProperty.call(message, "dim_param"))
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.dim_param);
                if (message.denotation != null && Object.hasOwnProperty.call(message, "denotation"))
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.denotation);
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes a Dimension message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TensorShapeProto.Dimension
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TensorShapeProto.Dimension} Dimension
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Dimension.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TensorShapeProto.Dimension();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.dim_value = readInt64(reader);
                            break;
                        }
                    case 2: {
                            message.dim_param = reader.string();
                            break;
                        }
                    case 3: {
                            message.denotation = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Dimension;
        })();

        return TensorShapeProto;
    })();

    onnx.TypeProto = (function() {

        /**
         * Properties of a TypeProto.
         * @memberof onnx
         * @interface ITypeProto
         * @property {onnx.TypeProto.ITensor|null} [tensor_type] TypeProto tensor_type
         * @property {onnx.TypeProto.ISequence|null} [sequence_type] TypeProto sequence_type
         * @property {onnx.TypeProto.IMap|null} [map_type] TypeProto map_type
         * @property {onnx.TypeProto.IOptional|null} [optional_type] TypeProto optional_type
         * @property {onnx.TypeProto.ISparseTensor|null} [sparse_tensor_type] TypeProto sparse_tensor_type
         * @property {onnx.TypeProto.IOpaque|null} [opaque_type] TypeProto opaque_type
         * @property {string|null} [denotation] TypeProto denotation
         */

        /**
         * Constructs a new TypeProto.
         * @memberof onnx
         * @classdesc Represents a TypeProto.
         * @implements ITypeProto
         * @constructor
         * @param {onnx.ITypeProto=} [properties] Properties to set
         */
        function TypeProto(properties) {
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TypeProto tensor_type.
         * @member {onnx.TypeProto.ITensor|null|undefined} tensor_type
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.tensor_type = null;

        /**
         * TypeProto sequence_type.
         * @member {onnx.TypeProto.ISequence|null|undefined} sequence_type
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.sequence_type = null;

        /**
         * TypeProto map_type.
         * @member {onnx.TypeProto.IMap|null|undefined} map_type
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.map_type = null;

        /**
         * TypeProto optional_type.
         * @member {onnx.TypeProto.IOptional|null|undefined} optional_type
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.optional_type = null;

        /**
         * TypeProto sparse_tensor_type.
         * @member {onnx.TypeProto.ISparseTensor|null|undefined} sparse_tensor_type
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.sparse_tensor_type = null;

        /**
         * TypeProto opaque_type.
         * @member {onnx.TypeProto.IOpaque|null|undefined} opaque_type
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.opaque_type = null;

        /**
         * TypeProto denotation.
         * @member {string} denotation
         * @memberof onnx.TypeProto
         * @instance
         */
        TypeProto.prototype.denotation = "";

        // OneOf field names bound to virtual getters and setters
        let $oneOfFields;

        /**
         * TypeProto value.
         * @member {"tensor_type"|"sequence_type"|"map_type"|"optional_type"|"sparse_tensor_type"|"opaque_type"|undefined} value
         * @memberof onnx.TypeProto
         * @instance
         */
        Object.defineProperty(TypeProto.prototype, "value", {
            get: $util.oneOfGetter($oneOfFields = ["tensor_type", "sequence_type", "map_type", "optional_type", "sparse_tensor_type", "opaque_type"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Creates a new TypeProto instance using the specified properties.
         * @function create
         * @memberof onnx.TypeProto
         * @static
         * @param {onnx.ITypeProto=} [properties] Properties to set
         * @returns {onnx.TypeProto} TypeProto instance
         */
        TypeProto.create = function create(properties) {
            return new TypeProto(properties);
        };

        /**
         * Encodes the specified TypeProto message. Does not implicitly {@link onnx.TypeProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.TypeProto
         * @static
         * @param {onnx.ITypeProto} message TypeProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TypeProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.tensor_type != null && Object.hasOwnProperty.call(message, "tensor_type"))
                $root.onnx.TypeProto.Tensor.encode(message.tensor_type, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.sequence_type != null && Object.hasOwnProperty.call(message, "sequence_type"))
                $root.onnx.TypeProto.Sequence.encode(message.sequence_type, writer.uint32(/* id 4, wireType 2 =*/34).fork(), q + 1).ldelim();
            if (message.map_type != null && Object.hasOwnProperty.call(message, "map_type"))
                $root.onnx.TypeProto.Map.encode(message.map_type, writer.uint32(/* id 5, wireType 2 =*/42).fork(), q + 1).ldelim();
            if (message.denotation != null && Object.hasOwnProperty.call(message, "denotation"))
                writer.uint32(/* id 6, wireType 2 =*/50).string(message.denotation);
            if (message.opaque_type != null && Object.hasOwnProperty.call(message, "opaque_type"))
                $root.onnx.TypeProto.Opaque.encode(message.opaque_type, writer.uint32(/* id 7, wireType 2 =*/58).fork(), q + 1).ldelim();
            if (message.sparse_tensor_type != null && Object.hasOwnProperty.call(message, "sparse_tensor_type"))
                $root.onnx.TypeProto.SparseTensor.encode(message.sparse_tensor_type, writer.uint32(/* id 8, wireType 2 =*/66).fork(), q + 1).ldelim();
            if (message.optional_type != null && Object.hasOwnProperty.call(message, "optional_type"))
                $root.onnx.TypeProto.Optional.encode(message.optional_type, writer.uint32(/* id 9, wireType 2 =*/74).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a TypeProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.TypeProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.TypeProto} TypeProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TypeProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.TypeProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.tensor_type = $root.onnx.TypeProto.Tensor.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 4: {
                        message.sequence_type = $root.onnx.TypeProto.Sequence.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 5: {
                        message.map_type = $root.onnx.TypeProto.Map.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 9: {
                        message.optional_type = $root.onnx.TypeProto.Optional.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 8: {
                        message.sparse_tensor_type = $root.onnx.TypeProto.SparseTensor.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 7: {
                        message.opaque_type = $root.onnx.TypeProto.Opaque.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 6: {
                        message.denotation = reader.string();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        TypeProto.Tensor = (function() {

            /**
             * Properties of a Tensor.
             * @memberof onnx.TypeProto
             * @interface ITensor
             * @property {number|null} [elem_type] Tensor elem_type
             * @property {onnx.ITensorShapeProto|null} [shape] Tensor shape
             */

            /**
             * Constructs a new Tensor.
             * @memberof onnx.TypeProto
             * @classdesc Represents a Tensor.
             * @implements ITensor
             * @constructor
             * @param {onnx.TypeProto.ITensor=} [properties] Properties to set
             */
            function Tensor(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Tensor elem_type.
             * @member {number} elem_type
             * @memberof onnx.TypeProto.Tensor
             * @instance
             */
            Tensor.prototype.elem_type = 0;

            /**
             * Tensor shape.
             * @member {onnx.ITensorShapeProto|null|undefined} shape
             * @memberof onnx.TypeProto.Tensor
             * @instance
             */
            Tensor.prototype.shape = null;

            /**
             * Creates a new Tensor instance using the specified properties.
             * @function create
             * @memberof onnx.TypeProto.Tensor
             * @static
             * @param {onnx.TypeProto.ITensor=} [properties] Properties to set
             * @returns {onnx.TypeProto.Tensor} Tensor instance
             */
            Tensor.create = function create(properties) {
                return new Tensor(properties);
            };

            /**
             * Encodes the specified Tensor message. Does not implicitly {@link onnx.TypeProto.Tensor.verify|verify} messages.
             * @function encode
             * @memberof onnx.TypeProto.Tensor
             * @static
             * @param {onnx.TypeProto.ITensor} message Tensor message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Tensor.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.elem_type != null && Object.hasOwnProperty.call(message, "elem_type"))
                    writer.uint32(/* id 1, wireType 0 =*/8).int32(message.elem_type);
                if (message.shape != null && Object.hasOwnProperty.call(message, "shape"))
                    $root.onnx.TensorShapeProto.encode(message.shape, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes a Tensor message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TypeProto.Tensor
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TypeProto.Tensor} Tensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Tensor.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TypeProto.Tensor();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.elem_type = reader.int32();
                            break;
                        }
                    case 2: {
                            message.shape = $root.onnx.TensorShapeProto.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Tensor;
        })();

        TypeProto.Sequence = (function() {

            /**
             * Properties of a Sequence.
             * @memberof onnx.TypeProto
             * @interface ISequence
             * @property {onnx.ITypeProto|null} [elem_type] Sequence elem_type
             */

            /**
             * Constructs a new Sequence.
             * @memberof onnx.TypeProto
             * @classdesc Represents a Sequence.
             * @implements ISequence
             * @constructor
             * @param {onnx.TypeProto.ISequence=} [properties] Properties to set
             */
            function Sequence(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Sequence elem_type.
             * @member {onnx.ITypeProto|null|undefined} elem_type
             * @memberof onnx.TypeProto.Sequence
             * @instance
             */
            Sequence.prototype.elem_type = null;

            /**
             * Creates a new Sequence instance using the specified properties.
             * @function create
             * @memberof onnx.TypeProto.Sequence
             * @static
             * @param {onnx.TypeProto.ISequence=} [properties] Properties to set
             * @returns {onnx.TypeProto.Sequence} Sequence instance
             */
            Sequence.create = function create(properties) {
                return new Sequence(properties);
            };

            /**
             * Encodes the specified Sequence message. Does not implicitly {@link onnx.TypeProto.Sequence.verify|verify} messages.
             * @function encode
             * @memberof onnx.TypeProto.Sequence
             * @static
             * @param {onnx.TypeProto.ISequence} message Sequence message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Sequence.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.elem_type != null && Object.hasOwnProperty.call(message, "elem_type"))
                    $root.onnx.TypeProto.encode(message.elem_type, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes a Sequence message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TypeProto.Sequence
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TypeProto.Sequence} Sequence
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Sequence.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TypeProto.Sequence();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.elem_type = $root.onnx.TypeProto.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Sequence;
        })();

        TypeProto.Map = (function() {

            /**
             * Properties of a Map.
             * @memberof onnx.TypeProto
             * @interface IMap
             * @property {number|null} [key_type] Map key_type
             * @property {onnx.ITypeProto|null} [value_type] Map value_type
             */

            /**
             * Constructs a new Map.
             * @memberof onnx.TypeProto
             * @classdesc Represents a Map.
             * @implements IMap
             * @constructor
             * @param {onnx.TypeProto.IMap=} [properties] Properties to set
             */
            function Map(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Map key_type.
             * @member {number} key_type
             * @memberof onnx.TypeProto.Map
             * @instance
             */
            Map.prototype.key_type = 0;

            /**
             * Map value_type.
             * @member {onnx.ITypeProto|null|undefined} value_type
             * @memberof onnx.TypeProto.Map
             * @instance
             */
            Map.prototype.value_type = null;

            /**
             * Creates a new Map instance using the specified properties.
             * @function create
             * @memberof onnx.TypeProto.Map
             * @static
             * @param {onnx.TypeProto.IMap=} [properties] Properties to set
             * @returns {onnx.TypeProto.Map} Map instance
             */
            Map.create = function create(properties) {
                return new Map(properties);
            };

            /**
             * Encodes the specified Map message. Does not implicitly {@link onnx.TypeProto.Map.verify|verify} messages.
             * @function encode
             * @memberof onnx.TypeProto.Map
             * @static
             * @param {onnx.TypeProto.IMap} message Map message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Map.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.key_type != null && Object.hasOwnProperty.call(message, "key_type"))
                    writer.uint32(/* id 1, wireType 0 =*/8).int32(message.key_type);
                if (message.value_type != null && Object.hasOwnProperty.call(message, "value_type"))
                    $root.onnx.TypeProto.encode(message.value_type, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes a Map message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TypeProto.Map
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TypeProto.Map} Map
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Map.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TypeProto.Map();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.key_type = reader.int32();
                            break;
                        }
                    case 2: {
                            message.value_type = $root.onnx.TypeProto.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Map;
        })();

        TypeProto.Optional = (function() {

            /**
             * Properties of an Optional.
             * @memberof onnx.TypeProto
             * @interface IOptional
             * @property {onnx.ITypeProto|null} [elem_type] Optional elem_type
             */

            /**
             * Constructs a new Optional.
             * @memberof onnx.TypeProto
             * @classdesc Represents an Optional.
             * @implements IOptional
             * @constructor
             * @param {onnx.TypeProto.IOptional=} [properties] Properties to set
             */
            function Optional(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Optional elem_type.
             * @member {onnx.ITypeProto|null|undefined} elem_type
             * @memberof onnx.TypeProto.Optional
             * @instance
             */
            Optional.prototype.elem_type = null;

            /**
             * Creates a new Optional instance using the specified properties.
             * @function create
             * @memberof onnx.TypeProto.Optional
             * @static
             * @param {onnx.TypeProto.IOptional=} [properties] Properties to set
             * @returns {onnx.TypeProto.Optional} Optional instance
             */
            Optional.create = function create(properties) {
                return new Optional(properties);
            };

            /**
             * Encodes the specified Optional message. Does not implicitly {@link onnx.TypeProto.Optional.verify|verify} messages.
             * @function encode
             * @memberof onnx.TypeProto.Optional
             * @static
             * @param {onnx.TypeProto.IOptional} message Optional message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Optional.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.elem_type != null && Object.hasOwnProperty.call(message, "elem_type"))
                    $root.onnx.TypeProto.encode(message.elem_type, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes an Optional message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TypeProto.Optional
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TypeProto.Optional} Optional
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Optional.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TypeProto.Optional();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.elem_type = $root.onnx.TypeProto.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Optional;
        })();

        TypeProto.SparseTensor = (function() {

            /**
             * Properties of a SparseTensor.
             * @memberof onnx.TypeProto
             * @interface ISparseTensor
             * @property {number|null} [elem_type] SparseTensor elem_type
             * @property {onnx.ITensorShapeProto|null} [shape] SparseTensor shape
             */

            /**
             * Constructs a new SparseTensor.
             * @memberof onnx.TypeProto
             * @classdesc Represents a SparseTensor.
             * @implements ISparseTensor
             * @constructor
             * @param {onnx.TypeProto.ISparseTensor=} [properties] Properties to set
             */
            function SparseTensor(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * SparseTensor elem_type.
             * @member {number} elem_type
             * @memberof onnx.TypeProto.SparseTensor
             * @instance
             */
            SparseTensor.prototype.elem_type = 0;

            /**
             * SparseTensor shape.
             * @member {onnx.ITensorShapeProto|null|undefined} shape
             * @memberof onnx.TypeProto.SparseTensor
             * @instance
             */
            SparseTensor.prototype.shape = null;

            /**
             * Creates a new SparseTensor instance using the specified properties.
             * @function create
             * @memberof onnx.TypeProto.SparseTensor
             * @static
             * @param {onnx.TypeProto.ISparseTensor=} [properties] Properties to set
             * @returns {onnx.TypeProto.SparseTensor} SparseTensor instance
             */
            SparseTensor.create = function create(properties) {
                return new SparseTensor(properties);
            };

            /**
             * Encodes the specified SparseTensor message. Does not implicitly {@link onnx.TypeProto.SparseTensor.verify|verify} messages.
             * @function encode
             * @memberof onnx.TypeProto.SparseTensor
             * @static
             * @param {onnx.TypeProto.ISparseTensor} message SparseTensor message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            SparseTensor.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.elem_type != null && Object.hasOwnProperty.call(message, "elem_type"))
                    writer.uint32(/* id 1, wireType 0 =*/8).int32(message.elem_type);
                if (message.shape != null && Object.hasOwnProperty.call(message, "shape"))
                    $root.onnx.TensorShapeProto.encode(message.shape, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes a SparseTensor message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TypeProto.SparseTensor
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TypeProto.SparseTensor} SparseTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            SparseTensor.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TypeProto.SparseTensor();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.elem_type = reader.int32();
                            break;
                        }
                    case 2: {
                            message.shape = $root.onnx.TensorShapeProto.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return SparseTensor;
        })();

        TypeProto.Opaque = (function() {

            /**
             * Properties of an Opaque.
             * @memberof onnx.TypeProto
             * @interface IOpaque
             * @property {string|null} [domain] Opaque domain
             * @property {string|null} [name] Opaque name
             */

            /**
             * Constructs a new Opaque.
             * @memberof onnx.TypeProto
             * @classdesc Represents an Opaque.
             * @implements IOpaque
             * @constructor
             * @param {onnx.TypeProto.IOpaque=} [properties] Properties to set
             */
            function Opaque(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            /**
             * Opaque domain.
             * @member {string} domain
             * @memberof onnx.TypeProto.Opaque
             * @instance
             */
            Opaque.prototype.domain = "";

            /**
             * Opaque name.
             * @member {string} name
             * @memberof onnx.TypeProto.Opaque
             * @instance
             */
            Opaque.prototype.name = "";

            /**
             * Creates a new Opaque instance using the specified properties.
             * @function create
             * @memberof onnx.TypeProto.Opaque
             * @static
             * @param {onnx.TypeProto.IOpaque=} [properties] Properties to set
             * @returns {onnx.TypeProto.Opaque} Opaque instance
             */
            Opaque.create = function create(properties) {
                return new Opaque(properties);
            };

            /**
             * Encodes the specified Opaque message. Does not implicitly {@link onnx.TypeProto.Opaque.verify|verify} messages.
             * @function encode
             * @memberof onnx.TypeProto.Opaque
             * @static
             * @param {onnx.TypeProto.IOpaque} message Opaque message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Opaque.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.domain != null && Object.hasOwnProperty.call(message, "domain"))
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.domain);
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.name);
                if (message.$unknownFields != null)
                    for (var u = 0; u < message.$unknownFields.length; ++u)
                        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
                return writer;
            };

            /**
             * Decodes an Opaque message from the specified reader or buffer.
             * @function decode
             * @memberof onnx.TypeProto.Opaque
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {onnx.TypeProto.Opaque} Opaque
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Opaque.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.onnx.TypeProto.Opaque();
                while (reader.pos < end) {
                    let tagStart = reader.pos, tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.domain = reader.string();
                            break;
                        }
                    case 2: {
                            message.name = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            return Opaque;
        })();

        return TypeProto;
    })();

    onnx.OperatorSetIdProto = (function() {

        /**
         * Properties of an OperatorSetIdProto.
         * @memberof onnx
         * @interface IOperatorSetIdProto
         * @property {string|null} [domain] OperatorSetIdProto domain
         * @property {Long|null} [version] OperatorSetIdProto version
         */

        /**
         * Constructs a new OperatorSetIdProto.
         * @memberof onnx
         * @classdesc Represents an OperatorSetIdProto.
         * @implements IOperatorSetIdProto
         * @constructor
         * @param {onnx.IOperatorSetIdProto=} [properties] Properties to set
         */
        function OperatorSetIdProto(properties) {
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * OperatorSetIdProto domain.
         * @member {string} domain
         * @memberof onnx.OperatorSetIdProto
         * @instance
         */
        OperatorSetIdProto.prototype.domain = "";

        /**
         * OperatorSetIdProto version.
         * @member {Long} version
         * @memberof onnx.OperatorSetIdProto
         * @instance
         */
        OperatorSetIdProto.prototype.version = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Creates a new OperatorSetIdProto instance using the specified properties.
         * @function create
         * @memberof onnx.OperatorSetIdProto
         * @static
         * @param {onnx.IOperatorSetIdProto=} [properties] Properties to set
         * @returns {onnx.OperatorSetIdProto} OperatorSetIdProto instance
         */
        OperatorSetIdProto.create = function create(properties) {
            return new OperatorSetIdProto(properties);
        };

        /**
         * Encodes the specified OperatorSetIdProto message. Does not implicitly {@link onnx.OperatorSetIdProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.OperatorSetIdProto
         * @static
         * @param {onnx.IOperatorSetIdProto} message OperatorSetIdProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        OperatorSetIdProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.domain != null && Object.hasOwnProperty.call(message, "domain"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.domain);
            if (message.version != null && Object.hasOwnProperty.call(message, "version"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.version);
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes an OperatorSetIdProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.OperatorSetIdProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.OperatorSetIdProto} OperatorSetIdProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        OperatorSetIdProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.OperatorSetIdProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.domain = reader.string();
                        break;
                    }
                case 2: {
                        message.version = readInt64(reader);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return OperatorSetIdProto;
    })();

    /**
     * OperatorStatus enum.
     * @name onnx.OperatorStatus
     * @enum {number}
     * @property {number} EXPERIMENTAL=0 EXPERIMENTAL value
     * @property {number} STABLE=1 STABLE value
     */
    onnx.OperatorStatus = (function() {
        const valuesById = {}, values = Object.create(valuesById);
        values[valuesById[0] = "EXPERIMENTAL"] = 0;
        values[valuesById[1] = "STABLE"] = 1;
        return values;
    })();

    onnx.FunctionProto = (function() {

        /**
         * Properties of a FunctionProto.
         * @memberof onnx
         * @interface IFunctionProto
         * @property {string|null} [name] FunctionProto name
         * @property {Array.<string>|null} [input] FunctionProto input
         * @property {Array.<string>|null} [output] FunctionProto output
         * @property {Array.<string>|null} [attribute] FunctionProto attribute
         * @property {Array.<onnx.IAttributeProto>|null} [attribute_proto] FunctionProto attribute_proto
         * @property {Array.<onnx.INodeProto>|null} [node] FunctionProto node
         * @property {string|null} [doc_string] FunctionProto doc_string
         * @property {Array.<onnx.IOperatorSetIdProto>|null} [opset_import] FunctionProto opset_import
         * @property {string|null} [domain] FunctionProto domain
         * @property {string|null} [overload] FunctionProto overload
         * @property {Array.<onnx.IValueInfoProto>|null} [value_info] FunctionProto value_info
         * @property {Array.<onnx.IStringStringEntryProto>|null} [metadata_props] FunctionProto metadata_props
         */

        /**
         * Constructs a new FunctionProto.
         * @memberof onnx
         * @classdesc Represents a FunctionProto.
         * @implements IFunctionProto
         * @constructor
         * @param {onnx.IFunctionProto=} [properties] Properties to set
         */
        function FunctionProto(properties) {
            this.input = [];
            this.output = [];
            this.attribute = [];
            this.attribute_proto = [];
            this.node = [];
            this.opset_import = [];
            this.value_info = [];
            this.metadata_props = [];
            if (properties)
                for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * FunctionProto name.
         * @member {string} name
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.name = "";

        /**
         * FunctionProto input.
         * @member {Array.<string>} input
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.input = $util.emptyArray;

        /**
         * FunctionProto output.
         * @member {Array.<string>} output
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.output = $util.emptyArray;

        /**
         * FunctionProto attribute.
         * @member {Array.<string>} attribute
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.attribute = $util.emptyArray;

        /**
         * FunctionProto attribute_proto.
         * @member {Array.<onnx.IAttributeProto>} attribute_proto
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.attribute_proto = $util.emptyArray;

        /**
         * FunctionProto node.
         * @member {Array.<onnx.INodeProto>} node
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.node = $util.emptyArray;

        /**
         * FunctionProto doc_string.
         * @member {string} doc_string
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.doc_string = "";

        /**
         * FunctionProto opset_import.
         * @member {Array.<onnx.IOperatorSetIdProto>} opset_import
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.opset_import = $util.emptyArray;

        /**
         * FunctionProto domain.
         * @member {string} domain
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.domain = "";

        /**
         * FunctionProto overload.
         * @member {string} overload
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.overload = "";

        /**
         * FunctionProto value_info.
         * @member {Array.<onnx.IValueInfoProto>} value_info
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.value_info = $util.emptyArray;

        /**
         * FunctionProto metadata_props.
         * @member {Array.<onnx.IStringStringEntryProto>} metadata_props
         * @memberof onnx.FunctionProto
         * @instance
         */
        FunctionProto.prototype.metadata_props = $util.emptyArray;

        /**
         * Creates a new FunctionProto instance using the specified properties.
         * @function create
         * @memberof onnx.FunctionProto
         * @static
         * @param {onnx.IFunctionProto=} [properties] Properties to set
         * @returns {onnx.FunctionProto} FunctionProto instance
         */
        FunctionProto.create = function create(properties) {
            return new FunctionProto(properties);
        };

        /**
         * Encodes the specified FunctionProto message. Does not implicitly {@link onnx.FunctionProto.verify|verify} messages.
         * @function encode
         * @memberof onnx.FunctionProto
         * @static
         * @param {onnx.IFunctionProto} message FunctionProto message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        FunctionProto.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
            if (message.input != null && message.input.length)
                for (let i = 0; i < message.input.length; ++i)
                    writer.uint32(/* id 4, wireType 2 =*/34).string(message.input[i]);
            if (message.output != null && message.output.length)
                for (let i = 0; i < message.output.length; ++i)
                    writer.uint32(/* id 5, wireType 2 =*/42).string(message.output[i]);
            if (message.attribute != null && message.attribute.length)
                for (let i = 0; i < message.attribute.length; ++i)
                    writer.uint32(/* id 6, wireType 2 =*/50).string(message.attribute[i]);
            if (message.node != null && message.node.length)
                for (let i = 0; i < message.node.length; ++i)
                    $root.onnx.NodeProto.encode(message.node[i], writer.uint32(/* id 7, wireType 2 =*/58).fork(), q + 1).ldelim();
            if (message.doc_string != null && Object.hasOwnProperty.call(message, "doc_string"))
                writer.uint32(/* id 8, wireType 2 =*/66).string(message.doc_string);
            if (message.opset_import != null && message.opset_import.length)
                for (let i = 0; i < message.opset_import.length; ++i)
                    $root.onnx.OperatorSetIdProto.encode(message.opset_import[i], writer.uint32(/* id 9, wireType 2 =*/74).fork(), q + 1).ldelim();
            if (message.domain != null && Object.hasOwnProperty.call(message, "domain"))
                writer.uint32(/* id 10, wireType 2 =*/82).string(message.domain);
            if (message.attribute_proto != null && message.attribute_proto.length)
                for (let i = 0; i < message.attribute_proto.length; ++i)
                    $root.onnx.AttributeProto.encode(message.attribute_proto[i], writer.uint32(/* id 11, wireType 2 =*/90).fork(), q + 1).ldelim();
            if (message.value_info != null && message.value_info.length)
                for (let i = 0; i < message.value_info.length; ++i)
                    $root.onnx.ValueInfoProto.encode(message.value_info[i], writer.uint32(/* id 12, wireType 2 =*/98).fork(), q + 1).ldelim();
            if (message.overload != null && Object.hasOwnProperty.call(message, "overload"))
                writer.uint32(/* id 13, wireType 2 =*/106).string(message.overload);
            if (message.metadata_props != null && message.metadata_props.length)
                for (let i = 0; i < message.metadata_props.length; ++i)
                    $root.onnx.StringStringEntryProto.encode(message.metadata_props[i], writer.uint32(/* id 14, wireType 2 =*/114).fork(), q + 1).ldelim();
            if (message.$unknownFields != null)
                for (var u = 0; u < message.$unknownFields.length; ++u)
                    writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);
            return writer;
        };

        /**
         * Decodes a FunctionProto message from the specified reader or buffer.
         * @function decode
         * @memberof onnx.FunctionProto
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {onnx.FunctionProto} FunctionProto
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        FunctionProto.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            let end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.onnx.FunctionProto($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);
            while (reader.pos < end) {
                let tagStart = reader.pos, tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.name = reader.string();
                        break;
                    }
                case 4: {
                        message.input = pushExact(message.input, reader.string());
                        break;
                    }
                case 5: {
                        message.output = pushExact(message.output, reader.string());
                        break;
                    }
                case 6: {
                        message.attribute = pushExact(message.attribute, reader.string());
                        break;
                    }
                case 11: {
                        message.attribute_proto = pushExact(message.attribute_proto, $root.onnx.AttributeProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 7: {
                        message.node = pushExact(message.node, $root.onnx.NodeProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 8: {
                        message.doc_string = reader.string();
                        break;
                    }
                case 9: {
                        message.opset_import = pushExact(message.opset_import, $root.onnx.OperatorSetIdProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 10: {
                        message.domain = reader.string();
                        break;
                    }
                case 13: {
                        message.overload = reader.string();
                        break;
                    }
                case 12: {
                        message.value_info = pushExact(message.value_info, $root.onnx.ValueInfoProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 14: {
                        message.metadata_props = pushExact(message.metadata_props, $root.onnx.StringStringEntryProto.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    (message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return FunctionProto;
    })();

    return onnx;
})();

export { $root as default };
