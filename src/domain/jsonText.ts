/**
 * A value already written as JSON text: a wire record (or a list of them) that SQLite serialised
 * itself (store/wireJson.ts). The route that sends it puts the text in its answer as it is.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
