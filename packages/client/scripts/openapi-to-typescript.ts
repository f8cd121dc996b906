/**
 * Writes the client's types from the server's OpenAPI document (GET /api/openapi.json): per
 * operation its path, its parameters (exclusive groups as a union, so a call cannot send two of
 * them) and its JSON response. src/openapi-types.test.ts runs this over the document the app
 * serves and compares with the committed src/openapi-types.ts, so the client cannot drift from
 * the server. A small JSON Schema subset is enough: the server's schemas use only object, array,
 * anyOf, const, enum and the primitive types; anything else is an error here, not an `unknown`.
 */

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = { readonly [key: string]: Json };

export interface OpenApiOperationSummary {
  readonly name: string;
  readonly path: string;
  readonly parameters: readonly string[];
}

const HEADER = `// Generated from the server's GET /api/openapi.json by scripts/openapi-to-typescript.ts: do not edit.
// src/openapi-types.test.ts regenerates it from the app and fails on any difference; after a change
// to the API run \`npx vitest run packages/client/src/openapi-types.test.ts -u\` to rewrite it.
`;

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(value: Json | undefined, where: string): JsonObject {
  if (!isObject(value)) throw new Error(`OpenAPI document: ${where} is not an object`);
  return value;
}

function arrayAt(value: Json | undefined, where: string): readonly Json[] {
  if (!Array.isArray(value)) throw new Error(`OpenAPI document: ${where} is not an array`);
  return value as readonly Json[];
}

function stringAt(value: Json | undefined, where: string): string {
  if (typeof value !== 'string') throw new Error(`OpenAPI document: ${where} is not a string`);
  return value;
}

/** `/api/tradelog` -> `tradelog`, `tradelog` -> `Tradelog`. */
function operationName(path: string): string {
  return path.replace(/^\/api\//, '');
}

function typeName(operation: string): string {
  return operation
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

function literal(value: Json): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  throw new Error(`OpenAPI document: unsupported literal ${JSON.stringify(value)}`);
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : literal(name);
}

function docComment(text: Json | undefined, indent: string): string {
  if (typeof text !== 'string' || text === '') return '';
  const clean = text.replace(/\*\//g, '* /').replace(/\s+/g, ' ').trim();
  return `${indent}/** ${clean} */\n`;
}

function schemaType(schema: JsonObject, indent: string, where: string): string {
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) {
    const members = arrayAt(union, `${where}.anyOf`).map((member, i) =>
      schemaType(objectAt(member, `${where}.anyOf[${i}]`), indent, `${where}.anyOf[${i}]`),
    );
    return members.join(' | ');
  }
  if ('const' in schema) return literal(schema.const ?? null);
  if (schema.enum !== undefined) return arrayAt(schema.enum, `${where}.enum`).map(literal).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'integer':
    case 'number':
      return 'number';
    case 'array': {
      const items = schemaType(objectAt(schema.items, `${where}.items`), indent, `${where}.items`);
      return `Array<${items}>`;
    }
    case 'object':
      return objectType(schema, indent, where);
    default:
      throw new Error(`OpenAPI document: unsupported schema at ${where}: ${JSON.stringify(schema)}`);
  }
}

function objectType(schema: JsonObject, indent: string, where: string): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([name, value]) => {
    const property = objectAt(value, `${where}.${name}`);
    const optional = required.has(name) ? '' : '?';
    const type = schemaType(property, inner, `${where}.${name}`);
    return `${docComment(property.description, inner)}${inner}${propertyName(name)}${optional}: ${type};\n`;
  });
  if (schema.additionalProperties !== false) lines.push(`${inner}[key: string]: unknown;\n`);
  return `{\n${lines.join('')}${indent}}`;
}

interface Parameter {
  readonly name: string;
  readonly required: boolean;
  readonly description: Json | undefined;
  readonly type: string;
}

function parameterOf(value: Json, components: JsonObject, where: string): Parameter {
  let parameter = objectAt(value, where);
  if (typeof parameter.$ref === 'string') {
    const name = parameter.$ref.replace('#/components/parameters/', '');
    parameter = objectAt(objectAt(components.parameters, 'components.parameters')[name], parameter.$ref);
  }
  const name = stringAt(parameter.name, `${where}.name`);
  return {
    name,
    required: parameter.required === true,
    description: parameter.description,
    type: schemaType(objectAt(parameter.schema, `${where}.schema`), '', `${where}.schema`),
  };
}

function parameterLine(parameter: Parameter, optional: boolean): string {
  return `${docComment(parameter.description, '  ')}  ${propertyName(parameter.name)}${optional ? '?' : ''}: ${parameter.type};\n`;
}

/**
 * An operation's parameters as a type: the parameters outside exclusive groups as one object,
 * each group as a union of objects that send exactly one member (the others `?: never`). The
 * `format` parameter is left to the client, whose methods choose the representation.
 */
function parametersType(
  parameters: readonly Parameter[],
  exactlyOne: readonly (readonly string[])[],
): string {
  const grouped = new Set(exactlyOne.flat());
  const own = parameters.filter((parameter) => !grouped.has(parameter.name) && parameter.name !== 'format');
  const parts = [`{\n${own.map((parameter) => parameterLine(parameter, !parameter.required)).join('')}}`];
  for (const group of exactlyOne) {
    const members = group.map((chosen) => {
      const lines = group.map((name) => {
        const parameter = parameters.find((candidate) => candidate.name === name);
        if (parameter === undefined)
          throw new Error(`OpenAPI document: exclusive parameter ${name} not listed`);
        return name === chosen ? parameterLine(parameter, false) : `  ${propertyName(name)}?: never;\n`;
      });
      return `{\n${lines.join('')}}`;
    });
    parts.push(`(${members.join(' | ')})`);
  }
  return parts.join(' & ');
}

/** The operations of the document that answer JSON (a 200 with application/json), by path order. */
export function jsonOperations(document: JsonObject): OpenApiOperationSummary[] {
  const paths = objectAt(document.paths, 'paths');
  const operations: OpenApiOperationSummary[] = [];
  for (const [path, item] of Object.entries(paths)) {
    const get = objectAt(item, path).get;
    if (!isObject(get)) continue;
    const ok = objectAt(objectAt(get.responses, `${path}.responses`)['200'], `${path} 200`);
    if (!isObject(ok.content) || !isObject(ok.content['application/json'])) continue;
    const parameters = arrayAt(get.parameters ?? [], `${path}.parameters`).map(
      (parameter, i) =>
        parameterOf(parameter, objectAt(document.components, 'components'), `${path}[${i}]`).name,
    );
    operations.push({ name: operationName(path), path, parameters });
  }
  return operations;
}

export function openApiToTypeScript(document: JsonObject): string {
  const components = objectAt(document.components, 'components');
  const paths = objectAt(document.paths, 'paths');
  const blocks: string[] = [HEADER];
  const summaries = jsonOperations(document);
  const names = summaries.map((summary) => summary.name);

  blocks.push(
    `/** Every JSON operation of the API: its path and the query parameters it accepts. */\nexport const OPERATIONS = {\n${summaries
      .map(
        ({ name, path, parameters }) =>
          `  ${propertyName(name)}: { path: ${literal(path)}, parameters: [${parameters.map(literal).join(', ')}] },\n`,
      )
      .join('')}} as const;\n`,
  );
  blocks.push(`export type OperationName = keyof typeof OPERATIONS;\n`);

  for (const { name, path } of summaries) {
    const get = objectAt(objectAt(paths[path], path).get, `${path}.get`);
    const type = typeName(name);
    const parameters = arrayAt(get.parameters ?? [], `${path}.parameters`).map((parameter, i) =>
      parameterOf(parameter, components, `${path}.parameters[${i}]`),
    );
    const exactlyOne = arrayAt(get['x-gridquote-exactly-one'] ?? [], `${path} x-gridquote-exactly-one`).map(
      (group, i) => arrayAt(group, `${path} exactly-one[${i}]`).map((member) => stringAt(member, path)),
    );
    const response = objectAt(
      objectAt(
        objectAt(objectAt(get.responses, `${path}.responses`)['200'], `${path} 200`).content,
        `${path} 200 content`,
      )['application/json'],
      `${path} application/json`,
    );
    const summary = typeof get.summary === 'string' ? get.summary : name;
    blocks.push(
      `/** Query parameters of GET ${path}: ${summary.replace(/\*\//g, '* /')} */\nexport type ${type}Params = ${parametersType(parameters, exactlyOne)};\n`,
    );
    blocks.push(
      `/** JSON answer of GET ${path}. */\nexport type ${type}Response = ${schemaType(objectAt(response.schema, `${path} schema`), '', `${path} schema`)};\n`,
    );
  }

  const schemas = isObject(components.schemas) ? components.schemas : {};
  for (const [name, schema] of Object.entries(schemas)) {
    blocks.push(
      `/** components.schemas.${name} */\nexport type ${name} = ${schemaType(objectAt(schema, name), '', name)};\n`,
    );
  }

  blocks.push(
    `/** Parameters and JSON answer of each operation, by name. */\nexport interface Operations {\n${names
      .map(
        (name) =>
          `  ${propertyName(name)}: { params: ${typeName(name)}Params; response: ${typeName(name)}Response };\n`,
      )
      .join('')}}\n`,
  );
  return blocks.join('\n');
}
