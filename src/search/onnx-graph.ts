import protobuf from 'protobufjs';

/**
 * A minimal ONNX graph writer: the messages of onnx.proto (github.com/onnx/onnx, onnx/onnx.proto) a plain
 * inference graph needs, with their upstream field numbers, encoded with protobufjs. The embedded embedding model is
 * built with it in memory from the checkpoint's weights (bert-graph.ts), so no converted model file is shipped or
 * fetched.
 */
const ONNX_PROTO = `
syntax = "proto2";
package onnx;
message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5; FLOATS = 6; INTS = 7; }
  optional string name = 1;
  optional AttributeType type = 20;
  optional float f = 2;
  optional int64 i = 3;
  optional bytes s = 4;
  optional TensorProto t = 5;
  repeated float floats = 7;
  repeated int64 ints = 8;
}
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; }
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  optional string domain = 7;
  repeated AttributeProto attribute = 5;
}
message ModelProto {
  optional int64 ir_version = 1;
  repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2;
  optional GraphProto graph = 7;
}
message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message TensorProto {
  enum DataType { UNDEFINED = 0; FLOAT = 1; INT64 = 7; }
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  optional string name = 8;
  optional bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
`;

const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
const ModelProto = root.lookupType('onnx.ModelProto');

export const FLOAT = 1;
export const INT64 = 7;
/** IR version 8 with opset 17: LayerNormalization is a standard operator from 17 on. */
const IR_VERSION = 8;
const OPSET = 17;

/** An attribute: a number is an INT, a list INTS; floats say so. */
type Attr = number | number[] | { float: number } | { tensor: TensorInit };
interface TensorInit {
  dims: number[];
  type: typeof FLOAT | typeof INT64;
  data: Uint8Array;
}

function attribute(name: string, value: Attr) {
  if (typeof value === 'number') return { name, type: 2, i: value };
  if (Array.isArray(value)) return { name, type: 7, ints: value };
  if ('float' in value) return { name, type: 1, f: value.float };
  return { name, type: 4, t: tensorProto('', value.tensor) };
}

function tensorProto(name: string, t: TensorInit) {
  return { name, dims: t.dims, data_type: t.type, raw_data: t.data };
}

function bytesOf(a: Float32Array | BigInt64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Builds one graph: initializers (weights), nodes in order, named inputs and outputs. */
export class GraphBuilder {
  private readonly nodes: object[] = [];
  private readonly initializers: object[] = [];
  private readonly inputs: object[] = [];
  private readonly outputs: object[] = [];
  private count = 0;

  /** A weight or constant; returns its name. */
  weight(name: string, dims: number[], data: Float32Array | BigInt64Array): string {
    const type = data instanceof Float32Array ? FLOAT : INT64;
    this.initializers.push(tensorProto(name, { dims, type, data: bytesOf(data) }));
    return name;
  }

  scalar(value: number): string {
    return this.weight(`const_${this.count++}`, [], new Float32Array([value]));
  }

  ints(values: number[]): string {
    return this.weight(`const_${this.count++}`, [values.length], BigInt64Array.from(values.map(BigInt)));
  }

  /** One node; returns the name of its (single) output. */
  op(opType: string, inputs: string[], attrs: Record<string, Attr> = {}): string {
    const output = `${opType.toLowerCase()}_${this.count++}`;
    this.nodes.push({
      op_type: opType,
      name: output,
      input: inputs,
      output: [output],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return output;
  }

  /** A graph input or output: element type and dimensions, a string naming a dynamic one. */
  input(name: string, type: number, dims: (number | string)[]): string {
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  output(from: string, name: string, type: number, dims: (number | string)[]): void {
    this.nodes.push({ op_type: 'Identity', name, input: [from], output: [name] });
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** The serialised ModelProto, ready for an ONNX Runtime session. */
  encode(graphName: string): Uint8Array {
    const model = ModelProto.fromObject({
      ir_version: IR_VERSION,
      producer_name: 'agent-artifact-drive',
      opset_import: [{ domain: '', version: OPSET }],
      graph: {
        name: graphName,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return ModelProto.encode(model).finish();
  }
}

function valueInfo(name: string, type: number, dims: (number | string)[]) {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: type,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) },
      },
    },
  };
}
