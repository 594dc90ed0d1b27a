import { describe, expect, it } from 'vitest';
import { plainObjectConstructor } from '../src/plain-object.js';

interface Point {
  x: number;
  y: string | null;
}

describe('plainObjectConstructor', () => {
  it('makes objects that are what an object literal would be', () => {
    const PlainPoint = plainObjectConstructor(function (this: Point, x: number, y: string | null) {
      this.x = x;
      this.y = y;
    });
    const point = new PlainPoint(1, null);
    expect(Object.getPrototypeOf(point)).toBe(Object.prototype);
    expect(point.constructor).toBe(Object);
    expect(point).toStrictEqual({ x: 1, y: null });
    expect(Object.keys(point)).toEqual(['x', 'y']);
    expect(JSON.stringify(point)).toBe('{"x":1,"y":null}');
    expect({ ...point }).toStrictEqual(point);
  });
});
